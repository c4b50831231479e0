"""What goes into the prompt: the system prompt, project memory (AGENTS.md), attached files,
compaction.
"""

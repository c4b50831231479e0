"""Slash commands: one registry of built-ins, skills and custom commands, and how they run."""

"""Hooks in Claude Code's format: commands run at the agent's events (``load``: where they come
from; ``run``: one command; ``outcome``: what its exit and output mean; ``session``: the events
as the loop fires them)."""

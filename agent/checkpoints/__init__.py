"""Checkpoints of the workspace before each turn's first change, in a shadow git repository."""

"""Constrained steps for small models: the step schema and the work habits the loop enforces."""

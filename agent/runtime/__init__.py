"""Assembling a working agent from config: model, tools, permissions, session, system prompt."""

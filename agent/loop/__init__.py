"""The agent loop: one turn of model steps and tool calls, and the typed events it emits to the
faces.
"""

"""The model behind the agent: the OpenAI-compatible endpoint, its streamed replies, a scripted
stand-in.
"""

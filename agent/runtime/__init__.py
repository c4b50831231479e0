"""The runtime both faces use (``Runtime``) and the assembly of an agent from config."""

from agent.runtime.runtime import RefusedRequest, Runtime, prompt_history_path

__all__ = ["RefusedRequest", "Runtime", "prompt_history_path"]

"""Everything that exists for small models, behind one door: the ``StepPolicy`` of constrained
steps (``agent.small.steps``) and what only it uses. The loop and the native policy never
import this package (an import contract); the runtime picks a policy once per session with
``session_policy``.
"""

from __future__ import annotations

from agent.config import ToolMode
from agent.loop.policy import StepPolicy


def session_policy(mode: ToolMode, small: str) -> StepPolicy:
    """The policy for ``config.tool_mode``: constrained steps where the mode says so, or where
    "auto" finds a reason in ``small`` (a model under 3B parameters, a chat template without
    tool calls); else the native policy, for the whole session: a model's invalid native call
    is returned to it as data, never a reason to switch."""
    if mode == "constrained" or (mode == "auto" and small):
        from agent.small.steps import ConstrainedSteps

        why = small if mode == "auto" else 'tool_mode = "constrained"'
        return ConstrainedSteps(f"Constrained steps this session ({why}).")
    return StepPolicy()

"""The step policy for a tool mode; "auto" is constrained for a small model, and for any other
native until the model's native calls prove invalid, then constrained."""

from __future__ import annotations

from agent.config import ToolMode
from agent.loop.events import EventSink, Notice
from agent.permissions.rules import Permissions
from agent.steps.constrained import ConstrainedSteps
from agent.steps.habits import ReadLedger
from agent.steps.policy import StepPolicy
from tools.registry import ToolRegistry

NATIVE_INVALID_SWITCH = 2  # invalid native calls before "auto" switches to constrained steps


class AutoSteps(StepPolicy):
    """Native steps until the model's native calls prove invalid, then constrained ones."""

    def __init__(
        self, registry: ToolRegistry, permissions: Permissions, ledger: ReadLedger
    ) -> None:
        super().__init__()
        self.registry, self.permissions, self.ledger = registry, permissions, ledger
        self.invalid = 0

    def after_calls(self, invalid: int, emit: EventSink) -> StepPolicy:
        self.invalid += invalid
        if self.invalid < NATIVE_INVALID_SWITCH:
            return self
        emit(Notice("The model's tool calls were invalid; switching to constrained steps."))
        return ConstrainedSteps(self.registry, self.permissions, self.ledger, self.watch)


def step_policy(
    mode: ToolMode,
    small_model: bool,
    registry: ToolRegistry,
    permissions: Permissions,
    ledger: ReadLedger,
) -> StepPolicy:
    """The policy for ``config.tool_mode``; "auto" is constrained for a small model."""
    if mode == "constrained" or (mode == "auto" and small_model):
        return ConstrainedSteps(registry, permissions, ledger)
    if mode == "auto":
        return AutoSteps(registry, permissions, ledger)
    return StepPolicy()

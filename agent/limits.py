"""Resource limits from config: finite, positive and under a hard ceiling, and never raised by a
project config the user has not trusted (a cloned repository could otherwise turn off beecode's
own timeouts and output caps with ``nan``, ``inf`` or a huge number)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# The most any config may ask for: a day of a command, two million characters of output.
CEILINGS: dict[str, float] = {
    "max_tokens": 1_048_576,
    "bash_timeout_s": 86_400,
    "bash_max_timeout_s": 86_400,
    "max_output_chars": 2_000_000,
    "max_steps": 10_000,
    "stall_timeout_s": 86_400,
    "prefill_notice_s": 86_400,
    "lint_timeout_s": 86_400,
    "test_timeout_s": 86_400,
    "lsp_timeout_s": 86_400,
    "check_rounds": 100,
}


def limit_problem(key: str, value: Any) -> str | None:
    """What is wrong with a limit's value, or None (also for settings that are no limit)."""
    if key not in CEILINGS or not isinstance(value, int | float):
        return None
    if not math.isfinite(value):
        return f"must be a finite number, not {value!r}"
    if value <= 0:
        return "must be greater than 0"
    if value > CEILINGS[key]:
        return f"must be at most {CEILINGS[key]:g}"
    return None


def loosened(project: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What an untrusted project config would loosen (ignored): limits set above what applies
    without it, and the sandbox turned off."""
    from agent.config import Config  # the defaults; imported here to keep config.py's import light

    defaults = Config()
    raised = [
        key
        for key, value in project.items()
        if key in CEILINGS and value > current.get(key, getattr(defaults, key))
    ]
    return raised + (["sandbox"] if project.get("sandbox") is False else [])

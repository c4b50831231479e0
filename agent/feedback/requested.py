"""``/lint`` and ``/test``: the project's check run on request, over the whole project.

It runs as an automatic one does (asked for as bash is, never in plan mode). When it fails, the
turn goes on as a model turn told what failed, to fix it; otherwise the turn ends with the
check's one-line result and no model request.
"""

from __future__ import annotations

from agent.events import EventSink, TurnFinished
from agent.feedback.detect import Lint, checks
from agent.feedback.run import Feedback

REQUESTED: tuple[Lint, ...] = ("lint", "test")


async def run_requested(kind: Lint, feedback: Feedback, emit: EventSink) -> TurnFinished | str:
    """The turn's end when there is nothing for the model to fix; else what it is told."""
    found = checks(feedback.ctx.workspace, feedback.config).get(kind)
    if found is None:
        why = f"/{kind}: no {kind} command is set ({kind}_cmd) or found in this project"
        return TurnFinished([], "error", why)
    result = await feedback.run(found, [], emit)
    if result.status in ("failed", "timed_out"):
        return (
            f"The user ran /{kind}: `{result.command}` failed ({result.summary}). "
            f"Fix what it reports.\n\n{result.output or '(no output)'}"
        )
    said = f"/{kind}: `{result.command}` {result.status.replace('_', ' ')} ({result.summary})"
    return TurnFinished([], "done" if result.status == "passed" else "error", said)

"""A running sub-agent as one collapsible block: its title says which agent, what task, its
state and its own figures; its body lists its tool calls, then its answer."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Collapsible, Static

from agent.events import (
    RequestStats,
    StepStats,
    SubagentFinished,
    SubagentStarted,
    SubagentStep,
    ToolCallFinished,
    ToolCallStarted,
)
from agent.model.stats import TurnFigures, combine
from agent.tui import format as fmt

RESULT_LINES = 30  # of the answer, on screen (the main agent read all of it)


class SubagentBlock(Collapsible):
    def __init__(self, started: SubagentStarted) -> None:
        self.started = started
        self.stats: list[RequestStats] = []
        self.calls: dict[str, str] = {}  # call id -> its line, as it stands
        self.lines = Static(Content("…"), classes="output")
        title = self._heading("…", "running")
        super().__init__(self.lines, title=title, collapsed=True, classes="tool subagent")  # type: ignore[arg-type]

    def _heading(self, mark: str, status: str) -> Content:
        figures = combine(self.stats)
        detail = ""
        if figures is not None:
            shown = TurnFigures.of(figures, requests=len(self.stats))
            detail = f" · {shown.requests} req · {shown.line()}"
        return Content.assemble(
            (f"{mark} ", ""),
            (self.started.agent, "bold"),
            f"  {self.started.description}",
            (f"  {status}{detail}", "dim"),
        )

    def step(self, step: SubagentStep) -> None:
        event, status = step.event, "running"
        match event:
            case StepStats(stats=stats):
                self.stats.append(stats)
            case ToolCallStarted():
                self.calls[event.call_id] = f"… {event.name}  {fmt.tool_subject(event.arguments)}"
            case ToolCallFinished():
                line = self.calls.get(event.call_id, f"… {event.name}")
                self.calls[event.call_id] = ("✗" if event.is_error else "✓") + line[1:]
        self.lines.update(Content("\n".join(self.calls.values()) or "…"))
        self.title = self._heading("…", status)  # type: ignore[assignment]

    def finish(self, done: SubagentFinished) -> None:
        self.stats = list(done.stats) or self.stats
        ok = done.stop_reason == "done"
        self.title = self._heading("✓" if ok else "✗", done.stop_reason)  # type: ignore[assignment]
        self.set_class(not ok, "-failed")
        shown, hidden = fmt.tail(done.result, RESULT_LINES)
        answer = (f"… {hidden} earlier lines\n" if hidden else "") + (shown or "(no answer)")
        calls = "\n".join(self.calls.values())
        self.lines.update(Content(f"{calls}\n\n{answer}" if calls else answer))

"""``beecode -p TASK``: one task to completion, for scripts, CI and the benchmarks.

Output formats: ``text`` (the answer on stdout; tool calls and a stats line on stderr),
``json`` (one object: result, stop_reason, figures (the turn's figures, as the TUI shows them:
``agent.model.stats.TurnFigures``), turns (each request's), tool_calls, checks (the project's
lint, tests and language server, as run after the turn's changes), the turn's facts as
changes, commands, failed and doubts, hooks (what they said or blocked, those skipped; also
``beecode:`` lines on stderr in every format), subagents (each one's agent, result, stop_reason,
figures and facts), notices (what beecode said in the turn, as the TUI shows it; on stderr in
``text``), session_id) and ``stream-json``
(every event as one JSON line, then the same result object with ``"type": "result"``). In
every format the server start's progress goes to stderr: its steps, and the bars of a build or a
download with the time they have left (``ProgressLines``).

Nobody is there to answer a permission prompt, so a call the permission mode would ask about is
denied, with a note on stderr and a message telling the model why. Pick the mode that fits the
task: ``--permission-mode auto-edit`` (edits run), ``yolo`` (everything runs), or allow rules.

Exit status: 0 done, 1 error, 2 usage, 3 stopped by the step limit, repeated tool failures or
a hook, or answered after a failed step that was not recovered, 130 interrupted. Nothing but
the answer or the JSON goes to stdout: no terminal escapes (notifications are the notify
command's and the Notification hooks' here).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import signal
import sys
from pathlib import Path
from typing import Any, TextIO

from agent.config import Config, ignored_note
from agent.events import (
    CheckFinished,
    Event,
    HookNote,
    HooksSkipped,
    ImageAttached,
    Notice,
    PermissionDecision,
    PermissionRequest,
    RequestStats,
    SubagentFinished,
    SubagentStep,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from agent.faces.contract import ConnectRequest, Facts, TurnRunner
from agent.faces.progress_lines import ProgressLines
from agent.facts import TurnFacts
from agent.model.stats import TurnFigures, combine
from agent.runtime import RefusedRequest, Runtime
from agent.runtime.served import AppError
from agent.sessions.store import SessionError

EXIT = {
    "done": 0,
    "failed": 3,
    "error": 1,
    "max_steps": 3,
    "tool_failures": 3,
    "blocked": 3,
    "cancelled": 130,
}

HEADLESS_DENIAL = (
    "No user is present to approve this (headless run); it was not run. "
    "Do without it, or finish and say what you would need."
)


def turn_figures(turns: list[RequestStats], facts: Facts | None) -> TurnFigures | None:
    """The turn's figures, the same the TUI's throughput line shows (``agent.model.stats``)."""
    turn = combine(turns)
    if turn is None:
        return None
    speculative = facts.speculative if facts else None
    return TurnFigures.of(turn, requests=len(turns), speculative=speculative)


def stats_line(figures: TurnFigures | None) -> str:
    """The closing line's figures for stderr."""
    if figures is None:
        return "no model requests"
    many = "s" if figures.requests != 1 else ""
    return f"{figures.requests} request{many} · {figures.line()} · {figures.wall_s:.1f} s"


def event_json(event: Event) -> dict[str, Any]:
    """An event as a JSON object: {"type": snake_case class name, ...fields}."""
    name = type(event).__name__
    kind = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    fields = {
        f.name: getattr(event, f.name) for f in dataclasses.fields(event) if f.name != "future"
    }
    return {"type": kind, **json.loads(json.dumps(fields, default=_plain))}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def facts_json(facts: TurnFacts) -> dict[str, Any]:
    """The turn's facts as the result object's ``changes``, ``commands``, ``failed``, ``doubts``
    and ``withheld`` (the model's report, when it was left out of the answer for its doubts)."""
    return {
        "changes": {"created": facts.created, "changed": facts.changed, "deleted": facts.deleted},
        "commands": [dataclasses.asdict(run) for run in facts.commands],
        "failed": facts.failed,
        "doubts": facts.doubts,
        "withheld": facts.withheld,
    }


class HeadlessFace:
    """Renders events for a terminal or a pipe and answers permission requests with a denial."""

    def __init__(
        self, output_format: str, out: TextIO, err: TextIO, facts: Facts | None = None
    ) -> None:
        self.format, self.out, self.err, self.facts = output_format, out, err, facts
        self.tool_calls: dict[str, dict[str, Any]] = {}
        self.hooks: list[dict[str, Any]] = []  # what hooks said or blocked, and those skipped
        self.checks: list[dict[str, Any]] = []  # the project's checks run (agent.feedback)
        self.images: list[dict[str, Any]] = []  # the images the task names (@path)
        self.subagents: list[dict[str, Any]] = []  # each sub-agent's answer and figures
        self.notices: list[dict[str, Any]] = []  # what beecode said in the turn (as the TUI)

    def emit(self, event: Event) -> None:
        if self.format == "stream-json":
            print(json.dumps(event_json(event), ensure_ascii=False), file=self.out, flush=True)
        match event:
            case PermissionRequest():
                who = f"{event.agent} agent: " if event.agent else ""
                print(
                    f"beecode: {who}denied {event.tool}({event.subject[:80]}): a headless run "
                    "cannot ask; allow it with --permission-mode or an allow rule",
                    file=self.err,
                )
                event.future.set_result(PermissionDecision("deny", HEADLESS_DENIAL))
            case ToolCallStarted():
                self.tool_calls[event.call_id] = {
                    "id": event.call_id,
                    "name": event.name,
                    "arguments": event.arguments,
                    **({"recovered": True} if event.recovered else {}),
                }
                if self.format == "text":
                    shown = f"{event.name} {json.dumps(event.arguments)[:160]}"
                    note = " (recovered from the reply's text)" if event.recovered else ""
                    print(f"→ {shown}{note}", file=self.err)
            case Notice():
                self.notices.append({"message": event.message, "level": event.level})
                if self.format == "text":
                    print(f"beecode: {event.message}", file=self.err)
            case ImageAttached():
                self.images.append(event_json(event))
                print(f"beecode: {event.line()}", file=self.err)
            case HookNote() | HooksSkipped():
                self.hooks.append(event_json(event))
                print(f"beecode: {event.line()}", file=self.err)
            case CheckFinished():
                self.checks.append(event_json(event))
                if self.format == "text":
                    ran = f"{event.kind} `{event.command}`" if event.command else event.kind
                    print(f"beecode: check {ran}: {event.status} ({event.summary})", file=self.err)
            case SubagentStep(event=ToolCallStarted() as call) if self.format == "text":
                print(
                    f"  [{event.agent}] → {call.name} {json.dumps(call.arguments)[:140]}",
                    file=self.err,
                )
            case SubagentFinished():
                figures = turn_figures(event.stats, self.facts)
                self.subagents.append(
                    {"task_id": event.task_id, "agent": event.agent, "result": event.result}
                    | {"stop_reason": event.stop_reason, "figures": figures and figures.as_json()}
                    | facts_json(event.facts)
                )
            case ToolCallFinished():
                self.tool_calls.setdefault(event.call_id, {"id": event.call_id, "name": event.name})
                self.tool_calls[event.call_id].update(
                    output=event.output, is_error=event.is_error, duration_s=event.duration_s
                )

    def finish(self, finished: TurnFinished, session_id: str) -> None:
        figures = turn_figures(finished.stats, self.facts)
        result = {
            "result": finished.final_text,
            "stop_reason": finished.stop_reason,
            "figures": figures.as_json() if figures else None,
            "turns": [dataclasses.asdict(s) for s in finished.stats],
            "tool_calls": list(self.tool_calls.values()),
            "checks": self.checks,
            "images": self.images,
            **facts_json(finished.facts),
            "hooks": self.hooks,
            "subagents": self.subagents,
            "notices": self.notices,
            "session_id": session_id,
        }
        if self.format == "json":
            print(json.dumps(result, ensure_ascii=False), file=self.out)
        elif self.format == "stream-json":
            print(json.dumps({"type": "result", **result}, ensure_ascii=False), file=self.out)
        else:
            for line in finished.facts.lines():  # beecode's account first, then the model's
                print(f"beecode: {line}", file=self.err)
            if finished.stop_reason in ("done", "failed"):
                print(finished.final_text, file=self.out)
            elif {"message": finished.final_text, "level": "warning"} not in self.notices:
                print(f"beecode: {finished.final_text}", file=self.err)  # not said as it came
            print(f"{stats_line(figures)} · session {session_id}", file=self.err)


async def _run(agent: TurnRunner, task: str, face: HeadlessFace) -> TurnFinished:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, agent.cancel)
    return await agent.run_turn(task, face.emit)


def run_headless(
    task: str,
    config: Config,
    output_format: str = "text",
    *,
    workspace: Path | None = None,
    resume: str | None = None,
    continue_latest: bool = False,
    fork: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    if (note := ignored_note(config)) is not None:
        print(f"beecode: {note}", file=err)

    progress = ProgressLines(err)
    runtime = Runtime(workspace or Path.cwd(), config)
    try:
        request = ConnectRequest(resume=resume, continue_latest=continue_latest, fork=fork)
        try:
            core = runtime.connect(request, progress)
            runtime.settle_mcp(progress)
        finally:
            progress.flush()  # a build's or download's last state, before what follows
        session_id = core.session_id or ""
        return run_agent(core.agent, task, output_format, out, err, session_id, core.facts)
    except (AppError, SessionError, RefusedRequest) as e:
        print(f"beecode: {e}", file=err)
        return 1
    finally:
        runtime.shutdown(stop_server=False)  # the next run reuses the warm server
        if (kept := runtime.kept_server()) is not None:
            print(f"beecode: {kept}", file=err)


def run_agent(
    agent: TurnRunner,
    task: str,
    output_format: str,
    out: TextIO,
    err: TextIO,
    session_id: str,
    facts: Facts | None = None,
) -> int:
    """Run one task on a connected agent and render it; returns the exit status."""
    face = HeadlessFace(output_format, out, err, facts)
    try:
        finished = asyncio.run(_run(agent, task, face))
    except SessionError as e:  # the task's first record could not be written (disk full)
        print(f"beecode: {e}", file=err)
        return 1
    face.finish(finished, session_id)
    return EXIT[finished.stop_reason]

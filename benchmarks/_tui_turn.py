"""One turn in the real TUI, headless, timed from the text painted on screen (for agent_overhead).

    python benchmarks/_tui_turn.py URL TASK   (in the workspace, with the benchmark's environment)

The real ``BeeApp`` on the real runtime (``agent.runtime.Runtime``, ``--endpoint URL``) runs under
Textual's headless driver at 120x40 and sends TASK as the user would. The user sees text when a
frame is written after the Markdown widget has taken it in, so two clocks run: every finished
append of the assistant's Markdown (with the source length it reached) and every frame written.
A text length is seen at the first frame after the append that reached it. Prints one JSON line:
the server's figures for the turn's model request, the first frame with text and how many tokens
it showed, and the first frame with the whole reply.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import time
from bisect import bisect_right
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.await_complete import AwaitComplete  # noqa: E402
from textual.widgets import Markdown  # noqa: E402

from agent.config import load_config  # noqa: E402
from agent.events import Event, RequestStats, StepStats, TextDelta  # noqa: E402
from agent.runtime import Runtime  # noqa: E402
from agent.tui.app import BeeApp  # noqa: E402

SIZE = (120, 40)
TIMEOUT_S = 600.0


class TimedApp(BeeApp):
    """The real app, noting when each frame is written."""

    frames: list[float]

    def _display(self, screen: Any, renderable: Any) -> None:
        super()._display(screen, renderable)
        self.frames.append(time.monotonic())


def time_appends(applied: list[tuple[float, int]]) -> None:
    """Note (time, source length) when an append to an assistant Markdown widget is done."""
    original = Markdown.append

    def append(self: Markdown, markdown: str) -> AwaitComplete:
        pending = original(self, markdown)
        reached = len(self.source)

        async def done() -> None:
            await pending
            if self.has_class("assistant"):
                applied.append((time.monotonic(), reached))

        return AwaitComplete(done())

    Markdown.append = append  # type: ignore[method-assign]


def shown(applied: list[tuple[float, int]], frames: list[float]) -> list[tuple[float, int]]:
    """(frame time, characters of the reply on that frame) for every frame showing some."""
    out: list[tuple[float, int]] = []
    done, visible = 0, 0
    for frame in frames:
        while done < len(applied) and applied[done][0] <= frame:
            visible = max(visible, applied[done][1])
            done += 1
        if visible:
            out.append((frame, visible))
    return out


def window(
    applied: list[tuple[float, int]], frames: list[float], ends: list[int]
) -> dict[str, Any]:
    """The first frame with text, how many tokens it showed (``ends``: the reply's length after
    each token), and the first frame showing the whole reply."""
    seen = shown(applied, frames)
    if not seen or not ends:
        return {"first_seen": None, "first_tokens": 0, "last_seen": None}
    first, chars = seen[0]
    return {
        "first_seen": first,
        "first_tokens": bisect_right(ends, chars),
        "last_seen": next((t for t, v in seen if v >= ends[-1]), None),
    }


async def one_turn(url: str, task: str) -> dict[str, Any]:
    workspace = Path.cwd()
    flags = {
        "endpoint": f"{url}/v1",
        "permission_mode": "plan",
        "tool_mode": "native",
        "max_steps": 1,
    }
    app = TimedApp(
        Runtime(workspace, load_config(workspace, flags)),
        history_path=workspace.parent / "tui-history.jsonl",
    )
    app.frames = []
    applied: list[tuple[float, int]] = []
    time_appends(applied)
    ends: list[int] = []  # the reply's length in characters after each text delta
    stats: list[RequestStats] = []
    async with app.run_test(size=SIZE, headless=True) as pilot:
        deadline = time.monotonic() + TIMEOUT_S
        while app.core is None and time.monotonic() < deadline:
            await pilot.pause(0.05)
        if app.core is None:
            raise RuntimeError("the TUI did not connect to the server")
        emit = app.main._emit

        def noted(event: Event) -> None:  # each event as the agent emits it, one per token
            if isinstance(event, TextDelta) and event.text:
                ends.append((ends[-1] if ends else 0) + len(event.text))
            elif isinstance(event, StepStats):
                stats.append(event.stats)
            emit(event)

        app.main._emit = noted  # type: ignore[method-assign]
        await app.main.start_turn(task)
        while app.main.turns_finished < 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # not pilot.pause: it awaits every widget, forces a frame
        await pilot.pause(0.2)  # the last frame after the reply's final append
    if not stats:
        raise RuntimeError("the TUI turn finished without the server's figures")
    return {
        "text_chars": ends[-1] if ends else 0,
        "deltas": len(ends),
        "stats": dataclasses.asdict(stats[0]),
        "frames": len(app.frames),
        **window(applied, app.frames, ends),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(one_turn(sys.argv[1], sys.argv[2]))))

"""The per-turn figures are the same in every face: the TUI's throughput line, the headless text
mode's closing line and the headless JSON's ``figures`` come from one turn of one runtime (the
real runtime, its model scripted) and must say the same thing."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from agent.config import Config
from agent.events import DraftingNote, RequestStats
from agent.faces.contract import ConnectRequest
from agent.faces.headless import run_agent
from agent.model.endpoint import StreamEnd
from agent.model.scripted import Script, call
from agent.model.speedup import INTERLEAVED
from agent.tui.screens.info import TextScreen
from tests.factory import ScriptedRuntime, answer
from tests.tui.harness import line, running, turn, until

# Two requests of one turn as llama-server reports them: a tool call, then the answer.
# The brake's note: 40 tok/s without drafting, measured on the server at this context.
NOTE = DraftingNote(paused=False, ratio=2.0, off_tok_s=40.0)
FIRST = RequestStats("server", 50.0, 100, 2000, 0, 80, 60, 4.0, prompt_tok_s=400.0, drafting=NOTE)
SECOND = RequestStats(
    "server", 100.0, 300, 40, 2100, 120, 90, 3.5, prompt_tok_s=200.0, drafting=NOTE
)


def script(second: RequestStats = SECOND) -> list[Script]:
    tool = call("ls", {"path": "."}, "c1")[:-1]
    return [[*tool, StreamEnd("tool_calls", FIRST)], answer("done", figures=second)]


def headless(
    workspace: Path,
    config: Config,
    fmt: str,
    second: RequestStats,
    replies: list[Script] | None = None,
) -> tuple[str, str]:
    runtime = ScriptedRuntime(workspace, replies or script(second), config)
    try:
        core = runtime.connect(ConnectRequest(), lambda key, line: None)
        out, err = io.StringIO(), io.StringIO()
        status = run_agent(core.agent, "look", fmt, out, err, core.session_id or "", core.facts)
        assert status == 0
        return out.getvalue(), err.getvalue()
    finally:
        runtime.shutdown()


async def tui(
    workspace: Path, config: Config, second: RequestStats, replies: list[Script] | None = None
) -> str:
    runtime = ScriptedRuntime(workspace, replies or script(second), config)
    async with running(runtime) as (app, pilot):
        await turn(app, pilot, "look")
        return line(app, "#throughput").rstrip(" ▁▂▃▄▅▆▇█")  # less the sparkline


@pytest.mark.parametrize(
    "second",
    [
        SECOND,
        # The answer held to a schema and no drafts anywhere: the server speculates (tiny runs
        # ngram-mod), so it is "0 drafted in constrained steps", never "speculation off".
        RequestStats("server", 100.0, 300, 40, 2100, None, None, 3.5, constrained=True),
    ],
)
def test_tui_and_headless_show_the_same_figures(
    workspace: Path, tiny_config: Config, second: RequestStats
) -> None:
    # Each face runs its own event loop, as `beecode` and `beecode -p` do.
    shown = asyncio.run(tui(workspace / "tui", tiny_config, second))
    _, err = headless(workspace / "text", tiny_config, "text", second)
    out, _ = headless(workspace / "json", tiny_config, "json", second)
    closing = err.splitlines()[-1]
    assert closing.startswith(f"2 requests · {shown} · ")
    figures: dict[str, Any] = json.loads(out)["figures"]
    # 400 tokens over 2 s + 3 s of decoding; against the 40 tok/s the brake measured without.
    assert shown.startswith("80.0 tok/s ×2.00 vs no-spec")
    assert (figures["decode_tok_s"], figures["speedup"], figures["baseline_tok_s"]) == (
        80.0,
        2.0,
        40.0,
    )
    assert figures["prompt_cached"] == 2100 and figures["prompt_new"] == 2040
    assert "prompt 2.1k cached / 2.0k new" in shown
    if second.draft_n is None:
        assert figures["speculation"] == "on"  # the first request drafted
    drafted, accepted = figures["drafted"], figures["accepted"]
    assert f"draft {accepted}/{drafted} ({accepted / drafted:.0%})" in shown


def test_the_speed_up_names_its_source_in_every_face(workspace: Path, tiny_config: Config) -> None:
    """One hover on the TUI's throughput line, one field of the headless JSON: the rate the
    speed-up divides by and how it was measured, the same in both."""

    async def tooltip() -> str | None:
        runtime = ScriptedRuntime(workspace / "tui", script(), tiny_config)
        async with running(runtime) as (app, pilot):
            throughput = app.main.query_one("#throughput", Static)
            assert throughput.tooltip is None  # no turn, no speed-up
            await turn(app, pilot, "look")
            return None if throughput.tooltip is None else str(throughput.tooltip)

    shown = asyncio.run(tooltip())
    out, _ = headless(workspace / "json", tiny_config, "json", SECOND)
    source = json.loads(out)["figures"]["speedup_source"]
    assert source == {
        "kind": "interleaved",
        "baseline_tok_s": 40.0,
        "ratio": 2.0,
        "conditions": INTERLEAVED,
    }
    assert shown == (
        "×2.00 vs no-spec: 80.0 tok/s this turn against 40.0 tok/s without drafting, "
        f"measured interleaved: {INTERLEAVED}"
    )


def test_a_turn_without_drafts_on_a_speculating_server(
    workspace: Path, tiny_config: Config
) -> None:
    # The brake has a rate without drafting for this server, but nothing was drafted: no
    # speed-up is claimed.
    quiet = RequestStats(
        "server", 40.0, 20, 30, 900, None, None, 1.0, constrained=True, drafting=NOTE
    )
    reply: list[Script] = [answer("ok", figures=quiet)]
    shown = asyncio.run(tui(workspace / "tui", tiny_config, quiet, reply))
    out, _ = headless(workspace / "json", tiny_config, "json", quiet, reply)
    figures = json.loads(out)["figures"]
    assert "0 drafted in constrained steps" in shown and "speculation off" not in shown
    assert figures["baseline_tok_s"] == 40.0
    assert figures["speedup"] is None and figures["speedup_source"] is None
    assert "vs no-spec" not in shown
    assert (figures["speculation"], figures["drafted"], figures["accepted"]) == (
        "idle_constrained",
        0,
        0,
    )


def test_prefill_seconds_agree(workspace: Path, tiny_config: Config) -> None:
    _, err = headless(workspace, tiny_config, "text", SECOND)
    # 2000 tokens at 400 tok/s and 40 at 200 tok/s: 5.2 s of prefill for 2040 new tokens.
    assert re.search(r"prompt 2\.1k cached / 2\.0k new \(5\.2 s prefill\)", err)


async def test_the_context_in_seconds(workspace: Path, tiny_config: Config) -> None:
    """The status line prices the context at the measured prefill rate; /context itemises it."""
    runtime = ScriptedRuntime(workspace, script(), tiny_config)
    async with running(runtime) as (app, pilot):
        assert app.core is not None and app.core.facts.prefill is not None
        app.core.facts.prefill.tok_s = 500.0  # as measured by an earlier session
        await turn(app, pilot, "look")
        # The turn's first request prefilled 2,000 tokens at 400 tok/s: the rate moves to 470.
        assert app.core.facts.prefill.tok_s == pytest.approx(470.0)
        # 2,100 cached + 40 new + 300 out: 2,440 tokens, 5.2 s at 470 tok/s with nothing cached.
        assert "· ctx 2.4k/8.2k (30%, 5.2 s cold) ·" in line(app, "#status")
        await pilot.press(*"/context", "enter")
        await until(pilot, lambda: type(app.screen).__name__ == "TextScreen")
        screen = app.screen
        assert isinstance(screen, TextScreen)
        shown = screen.body.plain
        assert "Prefill: 470 tok/s, measured on this machine" in shown
        assert re.search(r"conversation: [\d,]+ tokens, [\d.]+ s cold", shown)


def test_steps_without_a_draft_are_said_alike_in_every_face(
    workspace: Path, tiny_config: Config
) -> None:
    first = dataclasses.replace(FIRST, drafted_steps=2, least_steps=39)
    second = dataclasses.replace(SECOND, drafted_steps=3, least_steps=209)
    tool = call("ls", {"path": "."}, "c1")[:-1]
    replies: list[Script] = [
        [*tool, StreamEnd("tool_calls", first)],
        answer("done", figures=second),
    ]
    shown = asyncio.run(tui(workspace / "tui", tiny_config, second, replies))
    _, err = headless(workspace / "text", tiny_config, "text", second, replies)
    out, _ = headless(workspace / "json", tiny_config, "json", second, replies)
    assert "drafted in 5 of ≥248 steps" in shown
    assert f" · {shown} · " in err.splitlines()[-1]
    figures = json.loads(out)["figures"]
    assert (figures["drafted_steps"], figures["least_steps"]) == (5, 248)

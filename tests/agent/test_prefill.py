"""The context priced in seconds: the prefill rate measured from the server's timings and kept
per server and machine, the notice before a costly message is sent, and /context's report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Literal

import pytest

from agent.config import Config
from agent.context.prefill import PrefillRate, context_report
from agent.events import Event, Notice, RequestStats, StepStats
from agent.model.scripted import Script, call, text
from tests.factory import ENDPOINT, make_agent

pytestmark = pytest.mark.usefixtures("beecode_dirs")


def timed(
    prompt_n: int, prompt_tok_s: float, source: Literal["server", "client"] = "server"
) -> RequestStats:
    return RequestStats(source, 30.0, 10, prompt_n, 0, None, None, 1.0, prompt_tok_s)


def test_the_rate_is_measured_kept_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "prefill.json"
    rate = PrefillRate(path, "tiny|qwen")
    assert rate.tok_s is None and rate.seconds(1000) is None
    rate.observe(timed(2000, 400.0))
    assert rate.tok_s == 400.0 and rate.seconds(1000) == 2.5
    rate.observe(timed(2000, 300.0))  # a later measurement moves it, damped
    assert rate.tok_s == pytest.approx(370.0)
    again = PrefillRate(path, "tiny|qwen")  # the next session, on this machine
    assert again.tok_s == pytest.approx(370.0)
    assert PrefillRate(path, "other|model").tok_s is None  # each server its own


@pytest.mark.parametrize(
    "stats",
    [
        timed(40, 900.0),  # mostly per-request overhead
        timed(2000, 0.0),  # no rate reported
        timed(2000, 400.0, source="client"),  # not the server's own timing
    ],
)
def test_what_does_not_measure_the_rate(tmp_path: Path, stats: RequestStats) -> None:
    rate = PrefillRate(tmp_path / "prefill.json", "tiny")
    rate.observe(stats)
    assert rate.tok_s is None and not (tmp_path / "prefill.json").exists()


def test_a_damaged_file_is_no_rate(tmp_path: Path) -> None:
    path = tmp_path / "prefill.json"
    rate = PrefillRate(path, "tiny")
    for garbage in ("{", "[]", json.dumps({rate.key: {"tok_s": "fast"}})):
        path.write_text(garbage)
        assert PrefillRate(path, "tiny").tok_s is None


def run(workspace: Path, replies: list[Script], task: str, tok_s: float | None) -> list[Event]:
    config = Config(endpoint=ENDPOINT, tool_mode="native", permission_mode="yolo")
    agent = make_agent(workspace, replies, config)
    assert agent.prefill is not None
    agent.prefill.tok_s = tok_s
    events: list[Event] = []
    try:
        asyncio.run(agent.run_turn(task, events.append))
    finally:
        agent.close()
    return events


def notices(events: list[Event]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice)]


def test_an_attachment_past_the_limit_is_announced_before_it_is_sent(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("a line of notes about the project\n" * 200)
    events = run(workspace, [text("ok")], "summarise notes.txt", tok_s=100.0)
    [note] = notices(events)
    assert note.startswith("Sending the files attached to your message: ")
    assert note.endswith("s to prefill at 100 tok/s on this machine.")
    # Before the request that sends it.
    assert events.index(next(e for e in events if isinstance(e, Notice))) < events.index(
        next(e for e in events if isinstance(e, StepStats))
    )


def test_a_big_tool_result_is_announced_by_its_tool(workspace: Path) -> None:
    (workspace / "big.txt").write_text("x = 1\n" * 800)
    events = run(workspace, [call("read", {"path": "big.txt"}), text("ok")], "go", tok_s=100.0)
    assert [n.split(":")[0] for n in notices(events)] == ["Sending the read result"]


def test_nothing_is_announced_under_the_limit_or_without_a_rate(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("a line of notes about the project\n" * 200)
    assert notices(run(workspace, [text("ok")], "summarise notes.txt", tok_s=1e6)) == []
    assert notices(run(workspace, [text("ok")], "summarise notes.txt", tok_s=None)) == []


def test_context_report_prices_each_part(tmp_path: Path) -> None:
    rate = PrefillRate(tmp_path / "prefill.json", "tiny")
    parts = [("system prompt", 500), ("tool schemas", 1500), ("conversation", 2000)]
    assert context_report(parts, 8192, rate)[:4] == [
        "Context: 4,000 tokens of 8,192 (49%)",
        "  system prompt: 500 tokens",
        "  tool schemas: 1,500 tokens",
        "  conversation: 2,000 tokens",
    ]
    rate.tok_s = 200.0
    lines = context_report(parts, 8192, rate)
    assert lines[0] == "Context: 4,000 tokens, 20 s cold of 8,192 (49%)"
    assert lines[1] == "  system prompt: 500 tokens, 2.5 s cold"
    assert f"Prefill: 200 tok/s, measured on this machine ({rate.key})." in lines

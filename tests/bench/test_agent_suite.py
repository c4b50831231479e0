"""The `agent` suites: a growing tool-using history, and acceptance read against context length."""

from __future__ import annotations

import json

from rich.console import Console

from server.bench.agent_history import history
from server.bench.modes import default_modes, mode_profile, parse_mode
from server.bench.prompts import AGENT_LONG_PROMPTS, AGENT_PROMPTS, SUITES
from server.bench.report import print_report
from server.bench.stats import Sample, acceptance_by_context, summarize
from server.profiles.catalog import get_profile


def _chars(prompt_messages: tuple[dict[str, object], ...]) -> int:
    return sum(len(str(m.get("content") or "")) for m in prompt_messages)


def test_each_prompt_continues_a_longer_run_of_the_same_history() -> None:
    for suite in (AGENT_PROMPTS, AGENT_LONG_PROMPTS):
        lengths = [_chars(p.messages) for p in suite]
        assert lengths == sorted(lengths) and len(set(lengths)) == len(lengths)
        for shorter, longer in zip(suite, suite[1:], strict=False):
            assert longer.messages[: len(shorter.messages)] == shorter.messages
    assert SUITES["agent"] == AGENT_PROMPTS and SUITES["agent-long"] == AGENT_LONG_PROMPTS
    # Several thousand tokens of tool output at the deepest (~3.5 characters a token).
    assert _chars(AGENT_PROMPTS[-1].messages) > 15_000
    assert _chars(AGENT_LONG_PROMPTS[-1].messages) > 60_000


def test_the_history_is_tool_calls_and_their_results_ending_on_a_result() -> None:
    messages = history(12_000)
    assert [m["role"] for m in messages[:2]] == ["system", "user"]
    assert messages[-1]["role"] == "tool"
    calls = messages[2::2]
    results = messages[3::2]
    assert all(m["role"] == "assistant" and m["tool_calls"] for m in calls)
    for call, result in zip(calls, results, strict=True):
        (tool_call,) = call["tool_calls"]
        assert result["tool_call_id"] == tool_call["id"]
        json.loads(tool_call["function"]["arguments"])  # arguments as a JSON string, as sent
    names = {c["tool_calls"][0]["function"]["name"] for c in calls}
    assert names == {"bash", "read_file"}
    assert history(12_000) == messages  # byte-stable: every mode and repetition sees the same


def test_acceptance_is_reported_against_context_length() -> None:
    samples = [
        Sample(p.name, m, 0, 0.0, 64, 20.0, 3.0, context, 0, draft, accepted)
        for p, context in zip(AGENT_PROMPTS[:3], (1200, 2600, 4300), strict=True)
        for m, draft, accepted in (("none", None, None), ("ngram-mod", 40, 30 - context // 200))
    ]
    rows = summarize(samples)
    assert [r.context for r in rows if r.mode == "none"] == [1200, 2600, 4300]
    points = acceptance_by_context(rows)["ngram-mod"]
    assert [c for c, _ in points] == [1200, 2600, 4300]
    assert [round(a, 3) for _, a in points] == [0.6, 0.425, 0.225]
    console = Console(record=True, width=160)
    print_report(console, rows, [], "t")
    text = console.export_text()
    assert "ngram-mod acceptance by context: 1,200 tokens 60%, 2,600 tokens 42%" in text
    assert "4,300" in text  # the context column


def test_mtp_profiles_bench_none_against_mtp() -> None:
    gemma = get_profile("gemma4-31b-mtp")
    assert [m.label for m in default_modes(gemma)] == ["none", "draft-mtp"]
    mtp = mode_profile(gemma, parse_mode("draft-mtp"))
    assert (mtp.spec_type, mtp.draft) == ("draft-mtp", gemma.draft)
    qwen = mode_profile(get_profile("qwen3.6-27b-mtp"), parse_mode("draft-mtp"))
    assert qwen.draft is None and qwen.spec_type == "draft-mtp"  # the head is in the target

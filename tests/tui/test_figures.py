"""The TUI's plain logic: figures, formatting, event coalescing and command parsing."""

from __future__ import annotations

from dataclasses import replace

from agent.events import DraftingNote, Event, Notice, ReasoningDelta, TextDelta
from agent.model.speedup import INTERLEAVED
from agent.model.stats import combine
from agent.tui import format as fmt
from agent.tui.commands import parse
from agent.tui.inbox import Inbox, coalesce
from agent.tui.throughput import LiveRate, speedup_source, throughput_parts
from tests.factory import stats


def line(parts: list[tuple[str, str]]) -> str:
    return "".join(text for text, _ in parts)


class TestCombine:
    def test_turn_speed_is_tokens_over_summed_decode_time(self) -> None:
        # 100 tokens at 50 tok/s (2 s) and 300 at 100 tok/s (3 s): 400 tokens in 5 s.
        turn = combine([stats(50, 100, (80, 40)), stats(100, 300, None, prompt=10, cache=500)])
        assert turn is not None
        assert turn.decode_tok_s == 80.0
        assert (turn.draft_n, turn.draft_accepted) == (80, 40)
        assert (turn.prompt_n, turn.cache_n) == (310, 500)

    def test_no_speculation_anywhere_keeps_draft_none(self) -> None:
        turn = combine([stats(), stats()])
        assert turn is not None and turn.draft_n is None

    def test_one_client_measured_step_marks_the_turn(self) -> None:
        client = stats()
        client = type(client)("client", 10, 10, 1, 0, None, None, 1)
        turn = combine([stats(), client])
        assert turn is not None and turn.source == "client"

    def test_a_step_without_a_rate_does_not_inflate_the_speed(self) -> None:
        turn = combine([stats(50, 100), stats(0, 1)])
        assert turn is not None and turn.decode_tok_s == 50.0 and turn.predicted_n == 101

    def test_empty_turn_has_no_figure(self) -> None:
        assert combine([]) is None


ON = DraftingNote(paused=False, ratio=1.9, off_tok_s=60.0)  # the brake measured 60 tok/s off


class TestThroughputLine:
    def test_speculation_on(self) -> None:
        turn = stats(120, 200, (100, 80), 40, 960, drafting=ON)
        text = line(throughput_parts(turn, None, [50, 120]))
        assert text.startswith("120.0 tok/s ×2.00 vs no-spec")
        assert "draft 80/100 (80%)" in text
        assert "40% of output from drafts" in text
        assert "prompt 960 cached / 40 new" in text
        assert text.endswith("▄█")  # 50 of 120 is bar 3 of 0..7

    def test_a_speed_up_only_measured_like_for_like(self) -> None:
        # drafts but no rate without them measured on this server: no speed-up is claimed
        assert "vs no-spec" not in line(throughput_parts(stats(120, 200, (100, 80)), None, []))
        # a turn with nothing drafted claims none, whatever was measured before
        nothing = stats(33.3, drafting=replace(ON, ratio=None))
        text = line(throughput_parts(nothing, None, [], speculative=True))
        assert "vs no-spec" not in text and "· 0 drafted ·" in text

    def test_the_speed_up_carries_its_source(self) -> None:
        turn = stats(120, 200, (100, 80), drafting=ON)
        assert speedup_source(turn, True) == (
            "×2.00 vs no-spec: 120.0 tok/s this turn against 60.0 tok/s without drafting, "
            f"measured interleaved: {INTERLEAVED}"
        )
        assert speedup_source(None, True) is None
        # nothing drafted, or no rate without drafting measured: no speed-up, no source
        assert speedup_source(stats(120, 200, (0, 0), drafting=ON), True) is None
        assert speedup_source(stats(120, 200, (100, 80)), True) is None

    def test_a_client_clock_is_not_set_against_the_server_s_rate(self) -> None:
        # a turn the client timed (a step without the server's timings) against a rate the
        # server measured is not like for like
        client = replace(stats(120, 200, (100, 80), drafting=ON), source="client")
        assert "vs no-spec" not in line(throughput_parts(client, None, [], speculative=True))
        assert speedup_source(client, True) is None

    def test_a_turn_the_brake_sent_without_drafting_says_so(self) -> None:
        paused = DraftingNote(paused=True, ratio=0.55, off_tok_s=100.0)
        text = line(throughput_parts(stats(98.0, drafting=paused), None, [], speculative=True))
        assert text.startswith("98.0 tok/s · drafting paused: 0.55x ·")
        assert "vs no-spec" not in text and "0 drafted" not in text
        unmeasured = DraftingNote(paused=True, ratio=None)  # paused by a probe that got no answer
        text = line(throughput_parts(stats(98.0, drafting=unmeasured), None, [], speculative=True))
        assert text.startswith("98.0 tok/s · drafting paused ·")
        unaccepted = DraftingNote(paused=True, ratio=1.04, never_accepted=True)  # rates in noise
        text = line(throughput_parts(stats(98.0, drafting=unaccepted), None, [], speculative=True))
        assert text.startswith("98.0 tok/s · drafting paused: no draft accepted ·")

    def test_speculation_off_only_when_the_server_does_not_speculate(self) -> None:
        text = line(throughput_parts(stats(33.3), None, [], speculative=False))
        assert "speculation off" in text and "draft" not in text and "vs no-spec" not in text
        text = line(throughput_parts(stats(33.3), None, [], speculative=True))
        assert "· 0 drafted ·" in text and "off" not in text
        text = line(throughput_parts(stats(33.3), None, []))  # an endpoint that won't say
        assert "no drafts reported" in text and "off" not in text

    def test_live_estimate_before_server_figures(self) -> None:
        text = line(throughput_parts(None, LiveRate(50, 2.0), []))
        assert text == "~25.0 tok/s · 50 tok streaming"

    def test_nothing_yet(self) -> None:
        assert line(throughput_parts(None, None, [])) == "no turn yet"


class TestFormat:
    def test_durations(self) -> None:
        assert [fmt.duration(s) for s in (0.04, 2.25, 12.4, 65)] == ["40ms", "2.2s", "12s", "1m05s"]

    def test_tokens(self) -> None:
        assert [fmt.tokens(n) for n in (999, 1234, 32768)] == ["999", "1.2k", "33k"]

    def test_tool_subject_prefers_the_command_or_path(self) -> None:
        assert fmt.tool_subject({"command": "ls -la\necho hi"}) == "ls -la…"
        assert fmt.tool_subject({"path": "src/a.py", "content": "x"}) == "src/a.py"
        assert fmt.tool_subject({"action": "commit", "message": "m"}) == "commit"
        assert fmt.tool_subject({"n": 1}) == '{"n": 1}'

    def test_sparkline_scales_to_the_maximum(self) -> None:
        assert fmt.sparkline([0, 50, 100]) == "▁▅█"
        assert fmt.sparkline([]) == ""

    def test_tail_counts_what_it_leaves_out(self) -> None:
        assert fmt.tail("a\nb\nc\n", 2) == ("b\nc", 1)
        assert fmt.tail("a", 5) == ("a", 0)


class TestInbox:
    def test_adjacent_deltas_join_in_order(self) -> None:
        events: list[Event] = [
            TextDelta("a"),
            TextDelta("b"),
            Notice("n"),
            ReasoningDelta("r"),
            ReasoningDelta("s"),
            TextDelta("c"),
        ]
        assert coalesce(events) == [
            TextDelta("ab"),
            Notice("n"),
            ReasoningDelta("rs"),
            TextDelta("c"),
        ]

    def test_wakes_once_per_burst(self) -> None:
        wakes: list[int] = []
        inbox = Inbox(lambda: wakes.append(1))
        for text in "abc":
            inbox.put(TextDelta(text))
        assert len(wakes) == 1 and inbox.take() == [TextDelta("abc")]
        inbox.put(TextDelta("d"))
        assert len(wakes) == 2 and inbox.received == 4


class TestParse:
    def test_slash_commands(self) -> None:
        assert parse("/mode yolo") == ("mode", "yolo")
        assert parse("/HELP") == ("help", "")
        assert parse("hello /mode") is None
        assert parse("//not a command") is None

"""tools.output: the one head-and-tail capper (tool output, compaction) and the line cutter."""

from __future__ import annotations

from tools.output import HeadTail, cap_text, cut_line


def test_cap_text_keeps_head_and_tail_and_counts_the_middle() -> None:
    assert cap_text("short", 100) == "short"
    text = "HEAD" + "m" * 10_000 + "TAIL"
    capped = cap_text(text, 500)
    assert capped.startswith("HEAD") and capped.endswith("TAIL") and len(capped) <= 500
    head, marker, tail = capped.split("\n")
    assert marker == f"... [{len(text) - len(head) - len(tail)} chars omitted] ..."


def test_a_stream_fed_in_pieces_caps_like_the_whole_text() -> None:
    text = "".join(f"line {n}\n" for n in range(5000))
    stream = HeadTail(1000)
    for start in range(0, len(text), 7):
        stream.feed(text[start : start + 7])
    assert stream.text() == cap_text(text, 1000)


def test_cut_line_keeps_the_start() -> None:
    assert cut_line("abc", 3) == "abc"
    assert cut_line("abcdef", 2) == "ab... [4 chars omitted]"

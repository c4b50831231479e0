"""A bash line's parts as word lists, as the small-model checks read them."""

from __future__ import annotations

from agent.small.command_words import simple_commands


def test_each_part_split_as_the_shell_splits_words() -> None:
    line = "cat a.txt && sed -i '2d' 'my notes.txt'; rm -f b.txt | wc -l &\n ./run.sh"
    assert simple_commands(line) == [
        ["cat", "a.txt"],
        ["sed", "-i", "2d", "my notes.txt"],
        ["rm", "-f", "b.txt"],
        ["wc", "-l"],
        ["./run.sh"],
    ]


def test_an_open_quote_splits_at_whitespace_and_empty_parts_are_left_out() -> None:
    assert simple_commands("echo 'oops > a.txt ;; ") == [["echo", "'oops", ">", "a.txt"]]
    assert simple_commands("") == []

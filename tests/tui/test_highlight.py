"""A code block highlighted as it grows is highlighted as Textual highlights it whole, at every
step of the stream, and each finished block is highlighted whole once."""

from __future__ import annotations

import random

import pytest
from textual.content import Content
from textual.highlight import HighlightTheme, highlight

from agent.tui.highlight import GrowingCode

# Lines that carry state across them (docstrings, block comments, template and raw strings,
# heredocs, embedded scripts), a tab, and languages Pygments lexes with loops of their own.
CODE = {
    "python": 'import os\n\nclass A:\n    """Doc\n    string."""\n    def f(self, x: int) -> str:\n'
    '        s = f"{x!r} and {{}}"\n        return s  # note\n\n\tx = [1, 2,\n         3]\n',
    "javascript": "/* two\n lines */\nconst x = `tem\nplate ${a}`;\n"
    "function f(a) { return a / 2; } // c\nlet r = /re+gex/g;\n",
    "rust": 'fn main() {\n    let s = r#"raw\n str"#;\n    /* c\n */ println!("{}", s);\n}\n',
    "bash": 'for f in *.py; do\n  cat <<EOF\n"$f"\nEOF\ndone\n',
    "html": '<div class="a">\n<script>\nvar x = 1;\n</script>\n<style>\np { color: red; }\n'
    "</style>\n</div>\n",
    "toml": '[a]\nb = """\nmulti\n"""\nc = 1\n',
    "diff": "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n",
    "c": "int main() { /* x\n */ return 0; }\n",  # CFamilyLexer: highlighted whole
    "json": '{"a": [1, 2,\n 3]}\n',  # not a RegexLexer
    "": "def x():\n    pass\n",  # no language: guessed from the whole text
    "no-such-language": "x = 1\n",
}


def same(got: Content, want: Content) -> bool:
    return got.plain == want.plain and got.spans == want.spans


@pytest.mark.parametrize("language", list(CODE))
def test_every_step_of_a_growing_block_matches_textual(language: str) -> None:
    code = CODE[language] * 4
    for seed in range(12):
        pieces = random.Random(seed)
        growing, cut = GrowingCode(), 0
        while cut < len(code):
            cut = min(len(code), cut + pieces.randint(1, 12))
            text = code[:cut].rstrip()  # as MarkdownFence gets a fence's content
            want = highlight(text, language=language or None, theme=HighlightTheme)
            assert same(growing.highlight(text, language, HighlightTheme), want), (seed, cut)


def test_another_block_after_the_first_starts_over() -> None:
    growing = GrowingCode()
    for text in ("x = 1\ny = 2\nz = 3", 'print("a")\nq = 4', "x = 1\ny = 2\nw"):
        want = highlight(text, language="python", theme=HighlightTheme)
        assert same(growing.highlight(text, "python", HighlightTheme), want)


def test_the_lines_written_are_not_lexed_again() -> None:
    """The checkpoint follows the block: a line start a complete line behind its end."""
    growing, code = GrowingCode(), CODE["python"] * 4
    growing.highlight(code.rstrip(), "python", HighlightTheme)
    kept = growing._head  # what the next append does not lex again
    assert code.expandtabs(8).startswith(kept) and kept.endswith("\n")  # (the tab: 8 spaces)
    assert kept.count("\n") == code.rstrip().count("\n") - 1

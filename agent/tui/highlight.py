"""A growing code block highlighted as it streams, lexing only from its last complete lines.

Textual's Markdown builds a new fence widget for every append, and ``textual.highlight`` lexes
the whole block again each time: Pygments tries some thirty expressions per token, so a code
block of a few hundred lines cost tens of milliseconds per append, the largest cost of a fast
stream. ``GrowingCode`` keeps, for the block being written, the spans up to a line start and the
lexer's state stack there, and lexes only the rest: the same loop as Pygments'
``RegexLexer.get_tokens_unprocessed``, resumed where it stood. The checkpoint stays a complete
line behind the end, as an expression may look past the end of a line. Where one expression
spans many lines (Python's docstring rule, a block comment in JavaScript, Go or Java) the lines
before its end keep the styling they had while it was open, until the block is finished: then
``GrowingFence.settle`` highlights it whole, once, so every block ends as Textual renders it
whole. Lexers with their own loop (C's, YAML's, JSON's) and fences without a language (guessed
from the whole text) are highlighted whole every time, as before.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Whitespace, _TokenType
from pygments.util import ClassNotFound
from textual.content import Content, Span
from textual.highlight import HighlightTheme, highlight

TAB_SIZE = 8  # textual.highlight's default, which MarkdownFence uses


class GrowingCode:
    """The highlighting of the code block a reply is writing, kept between its appends."""

    def __init__(self) -> None:
        self._key: tuple[str, type[HighlightTheme]] | None = None
        self._lexer: RegexLexer | None = None
        self._head = ""  # the lexer's input up to the checkpoint (a line start)
        self._spans: list[Span] = []  # the styled spans before it
        self._offset = 0  # where the next token's span starts (as textual.highlight counts)
        self._stack: tuple[str, ...] = ("root",)
        self._head_lines = 0  # lines before the checkpoint
        self.stable_lines = 0  # leading lines the last highlight kept from the one before it

    def highlight(self, code: str, language: str, theme: type[HighlightTheme]) -> Content:
        """What ``textual.highlight.highlight(code, language=language, theme=theme)`` gives."""
        if (language, theme) != self._key:
            self._key, self._lexer = (language, theme), _resumable_lexer(language)
            self._restart()
        lexer, self.stable_lines = self._lexer, 0
        if lexer is None:
            return highlight(code, language=language or None, theme=theme, tab_size=TAB_SIZE)
        code = "\n".join(code.splitlines())
        text = lexer._preprocess_lexer_input(code)  # type: ignore[attr-defined]  # as get_tokens
        if not text.startswith(self._head):
            self._restart()  # another block, or text that changed behind the checkpoint
        self.stable_lines = self._head_lines  # lexed from the checkpoint, not the first line
        spans = self._lex_from_checkpoint(lexer, text, theme.STYLES)
        return Content(code, spans=spans).stylize_before("$text")

    def _restart(self) -> None:
        self._head, self._spans, self._offset, self._stack = "", [], 0, ("root",)
        self._head_lines = 0

    def _lex_from_checkpoint(
        self, lexer: RegexLexer, text: str, styles: dict[tuple[str, ...], str]
    ) -> list[Span]:
        """The spans of ``text``: kept ones up to the checkpoint, new ones after it; moves the
        checkpoint to the last line start a complete line before the end."""
        spans = list(self._spans)
        offset, keep_before = self._offset, text.rfind("\n", 0, len(text) - 1) + 1
        keep_before = text.rfind("\n", 0, max(keep_before - 1, 0)) + 1
        moved: tuple[int, int, tuple[str, ...], int] | None = None
        for pos, token_type, value, stack in _resume(lexer, text, len(self._head), self._stack):
            if stack is not None and len(self._head) < pos <= keep_before:
                moved = (pos, offset, stack, len(spans))
            end = offset + len(value)
            style_type: _TokenType | None = token_type
            while style_type is not None:
                if style := styles.get(style_type):
                    spans.append(Span(offset, end, style))
                    break
                style_type = style_type.parent
            offset = end
        if moved is not None:
            pos, self._offset, self._stack, count = moved
            self._head_lines += text.count("\n", len(self._head), pos)
            self._head, self._spans = text[:pos], spans[:count]
        return spans


def _resumable_lexer(language: str) -> RegexLexer | None:
    """The lexer textual.highlight would use, when its loop is RegexLexer's own (resumable)."""
    if not language:
        return None  # guessed from the whole text each time
    try:
        lexer = get_lexer_by_name(language, stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
    except ClassNotFound:
        return None
    own_loop = type(lexer).get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed
    if not isinstance(lexer, RegexLexer) or own_loop or lexer.filters:
        return None
    return lexer


def _resume(
    lexer: RegexLexer, text: str, pos: int, stack: tuple[str, ...]
) -> list[tuple[int, _TokenType, str, tuple[str, ...] | None]]:
    """Pygments 2's ``RegexLexer.get_tokens_unprocessed(text[pos:], stack)`` from ``pos`` in
    ``text``, each token with the state stack where a match begins a line (else None)."""
    tokens: list[tuple[int, _TokenType, str, tuple[str, ...] | None]] = []
    tokendefs = lexer._tokens  # type: ignore[attr-defined]  # the compiled states, as Pygments'
    statestack = list(stack)
    statetokens = tokendefs[statestack[-1]]
    while True:
        for rexmatch, action, new_state in statetokens:
            match = rexmatch(text, pos)
            if not match:
                continue
            line_start = tuple(statestack) if pos == 0 or text[pos - 1] == "\n" else None
            if action is not None:
                if type(action) is _TokenType:
                    tokens.append((pos, action, match.group(), line_start))
                else:
                    for at, token_type, value in action(lexer, match):
                        tokens.append((at, token_type, value, line_start if at == pos else None))
                        line_start = None
            pos = match.end()
            if new_state is not None:
                _transition(statestack, new_state)
                statetokens = tokendefs[statestack[-1]]
            break
        else:
            if pos >= len(text):
                return tokens
            if text[pos] == "\n":  # at the end of a line, back to "root"
                statestack = ["root"]
                statetokens = tokendefs["root"]
                tokens.append((pos, Whitespace, "\n", None))
            else:
                tokens.append((pos, Error, text[pos], None))
            pos += 1


def _transition(statestack: list[str], new_state: object) -> None:
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(statestack) > 1:
                    statestack.pop()
            elif state == "#push":
                statestack.append(statestack[-1])
            else:
                statestack.append(state)
    elif isinstance(new_state, int):  # pop, keeping at least one state
        if abs(new_state) >= len(statestack):
            del statestack[1:]
        else:
            del statestack[new_state:]
    elif new_state == "#push":
        statestack.append(statestack[-1])

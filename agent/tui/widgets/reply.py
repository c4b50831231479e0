"""The assistant's streamed reply: Textual's Markdown, with code blocks highlighted as they grow."""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.content import Content
from textual.css.query import NoMatches
from textual.highlight import ANSIDarkHighlightTheme, ANSILightHighlightTheme, HighlightTheme
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from agent.tui.highlight import GrowingCode
from agent.tui.widgets.background import SameRows
from agent.tui.widgets.code_lines import CodeLines

if TYPE_CHECKING:
    from markdown_it.token import Token


class QuietFence(SameRows, MarkdownFence):
    """A code block highlighted again only when the app's theme changes. Textual's highlights
    its whole block again on every restyle (a sibling mounted after it, a class changed above
    it), with the same theme: the same styling, every earlier answer's blocks included."""

    def __init__(self, markdown: Markdown, token: Token, code: str) -> None:
        super().__init__(markdown, token, code)
        self._theme = self._app_theme()

    def _app_theme(self) -> tuple[bool, bool]:
        return self.app.native_ansi_color, self.app.current_theme.dark  # highlight()'s inputs

    def notify_style_update(self) -> None:
        if self._app_theme() == self._theme:
            MarkdownBlock.notify_style_update(self)  # what MarkdownFence's does after highlighting
        else:
            self._theme = self._app_theme()
            super().notify_style_update()

    def _copy_context(self, block: MarkdownBlock) -> None:
        super()._copy_context(block)
        if isinstance(block, QuietFence):
            self._theme = block._theme


class Transcript(SameRows, Markdown):
    """Markdown whose code blocks are highlighted again only when the theme changes."""

    BLOCKS = {**Markdown.BLOCKS, "fence": QuietFence, "code_block": QuietFence}


class GrowingFence(QuietFence):
    """A code block of a streaming reply. Textual builds one for every append to the block;
    this one asks the reply's ``GrowingCode``, which lexes only the block's newest lines. It
    shows its lines in a ``CodeLines``, which renders again only the lines that changed: a
    Label renders all its lines whenever it changes, and the block changes with every append."""

    DEFAULT_CSS = """
    GrowingFence { padding: 1 0; }
    GrowingFence > CodeLines { padding: 0 2; }
    GrowingFence:ansi > CodeLines { padding: 0 0; }
    """  # MarkdownFence's label has padding 1 2 (1 0 in ANSI colour); the rows go on the fence

    settled = False  # highlighted from its first line, as Textual would
    stable_lines = 0  # leading lines its last highlight kept from the one before

    def highlight(  # type: ignore[override]  # Textual calls it on the instance
        self, code: str, language: str, ansi: bool = False, dark: bool = False
    ) -> Content:
        reply = self._markdown
        if not isinstance(reply, GrowingMarkdown):
            return MarkdownFence.highlight(code, language, ansi=ansi, dark=dark)
        theme: type[HighlightTheme] = HighlightTheme
        if ansi:
            theme = ANSIDarkHighlightTheme if dark else ANSILightHighlightTheme
        highlighted = reply.growing.highlight(code, language, theme)
        self.stable_lines = reply.growing.stable_lines
        self.settled = not self.stable_lines
        return highlighted

    def settle(self) -> None:
        """Highlight the finished block whole if its last lexing resumed from a checkpoint:
        it ends as a block rendered whole."""
        if not self.settled:
            self.settled, self.stable_lines = True, 0
            ansi, dark = self.app.native_ansi_color, self.app.current_theme.dark
            self._highlighted_code = MarkdownFence.highlight(
                self.code, self.lexer, ansi=ansi, dark=dark
            )
            self.set_content(self._highlighted_code)

    def _copy_context(self, block: MarkdownBlock) -> None:
        super()._copy_context(block)  # the block grew: the new block's highlighting is taken
        if isinstance(block, GrowingFence):
            self.settled, self.stable_lines = block.settled, block.stable_lines
        else:
            self.settled, self.stable_lines = False, 0

    def compose(self) -> ComposeResult:
        yield CodeLines(self._highlighted_code)

    def set_content(self, content: Content) -> None:
        """Show ``content``: only its lines that changed are rendered again."""
        self._content = content
        with suppress(NoMatches):  # not composed yet: compose shows it
            self.query_one(CodeLines).update(content, self.stable_lines)


class GrowingMarkdown(Transcript):
    """Markdown that streams: its code blocks are highlighted as they grow, and settled
    (highlighted whole where their lexing resumed) once the stream stops. Not while it runs:
    an 80-line block takes ~8 ms of CPU to lex whole, in the middle of a fast stream's frames."""

    BLOCKS = {**Markdown.BLOCKS, "fence": GrowingFence, "code_block": GrowingFence}

    def __init__(self, classes: str) -> None:
        super().__init__(classes=classes)
        self.growing = GrowingCode()

    def settle(self) -> None:
        """Settle every code block (each settles once)."""
        if self.is_mounted:
            for fence in self.query(GrowingFence):
                fence.settle()

"""The assistant's streamed reply: Textual's Markdown, with code blocks highlighted as they grow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.content import Content
from textual.highlight import ANSIDarkHighlightTheme, ANSILightHighlightTheme, HighlightTheme
from textual.widgets import Label, Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from agent.tui.highlight import GrowingCode
from agent.tui.widgets.background import SameRows

if TYPE_CHECKING:
    from markdown_it.token import Token

CHUNK_LINES = 24  # lines per label of a growing code block (a label renders all its lines)


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
    shows its lines in labels of CHUNK_LINES: a label renders all its lines when it changes,
    so only the last one, where the block grows, is rendered again per append."""

    DEFAULT_CSS = """
    GrowingFence { padding: 1 0; }
    GrowingFence > Label { padding: 0 2; }
    GrowingFence:ansi > Label { padding: 0 0; }
    """  # MarkdownFence's one label has padding 1 2 (1 0 in ANSI colour): the rows go around all

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

    def __init__(self, markdown: Markdown, token: Token, code: str) -> None:
        self._chunks: list[Content] = []  # the full labels' lines, CHUNK_LINES each
        self._ends: list[int] = []  # where each full label's text ends (after its newline)
        super().__init__(markdown, token, code)

    def compose(self) -> ComposeResult:
        *full, tail = self._split(self._highlighted_code)
        for chunk in full:
            yield Label(chunk, expand=True)
        yield Label(tail, id="code-content", expand=True)

    def set_content(self, content: Content) -> None:
        """Show ``content``: the full labels its highlight kept as they are, the others
        updated where their lines changed, the last one always."""
        self._content = content
        if not self.is_mounted:
            return  # compose shows it
        labels = list(self.query_children(Label))
        keep = min(len(self._chunks), self.stable_lines // CHUNK_LINES)
        shown = self._chunks[keep:]
        del self._chunks[keep:], self._ends[keep:]
        *full, tail = self._split(content)
        for label, before, now in zip(labels[keep:-1], shown, full, strict=False):
            if not _same(before, now):
                label.update(now)
        if len(full) > len(shown):
            added = [Label(chunk, expand=True) for chunk in full[len(shown) :]]
            self.mount_all(added, before=labels[-1])
        for label in labels[keep + len(full) : -1]:
            label.remove()
        labels[-1].update(tail)

    def _split(self, content: Content) -> list[Content]:
        """The lines of full labels after those in _chunks (noted there), then the last
        label's: the rest, with at least the line being written."""
        plain, start, full = content.plain, (self._ends or [0])[-1], list[Content]()
        while True:
            end = start
            for _ in range(CHUNK_LINES):
                end = plain.find("\n", end) + 1
                if not end:
                    return [*full, content[start:]]
            if plain.find("\n", end) < 0:  # the line being written stays in the last label
                return [*full, content[start:]]
            full.append(content[start : end - 1])
            self._chunks.append(full[-1])
            self._ends.append(end)
            start = end


def _same(before: Content, now: Content) -> bool:
    return before.plain == now.plain and before.spans == now.spans


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

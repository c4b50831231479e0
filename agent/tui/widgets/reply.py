"""The assistant's streamed reply: Textual's Markdown, with code blocks highlighted as they grow."""

from __future__ import annotations

from textual.await_complete import AwaitComplete
from textual.content import Content
from textual.highlight import ANSIDarkHighlightTheme, ANSILightHighlightTheme, HighlightTheme
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from agent.tui.highlight import GrowingCode


class GrowingFence(MarkdownFence):
    """A code block of a streaming reply. Textual builds one for every append to the block;
    this one asks the reply's ``GrowingCode``, which lexes only the block's newest lines."""

    settled = False  # highlighted from its first line, as Textual would

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
        self.settled = not reply.growing.resumed
        return highlighted

    def settle(self) -> None:
        """Highlight the finished block whole if its last lexing resumed from a checkpoint:
        it ends as a block rendered whole."""
        if not self.settled:
            self.settled = True
            ansi, dark = self.app.native_ansi_color, self.app.current_theme.dark
            self._highlighted_code = MarkdownFence.highlight(
                self.code, self.lexer, ansi=ansi, dark=dark
            )
            self.set_content(self._highlighted_code)

    def _copy_context(self, block: MarkdownBlock) -> None:
        super()._copy_context(block)  # the block grew: the new block's highlighting is taken
        self.settled = isinstance(block, GrowingFence) and block.settled


class GrowingMarkdown(Markdown):
    """Markdown that streams: its code blocks are highlighted as they grow, and when an append
    is in, every block it left behind is settled (highlighted whole)."""

    BLOCKS = {**Markdown.BLOCKS, "fence": GrowingFence, "code_block": GrowingFence}

    def __init__(self, classes: str) -> None:
        super().__init__(classes=classes)
        self.growing = GrowingCode()
        self._settled = 0  # leading blocks settled (an append rebuilds only the last block)

    def append(self, markdown: str) -> AwaitComplete:
        appended = super().append(markdown)

        async def then_settle() -> None:
            await appended
            self.settle(keep_last=True)

        return AwaitComplete(then_settle())

    def settle(self, keep_last: bool = False) -> None:
        """Settle the code blocks no longer written to: all of them once the stream stops,
        else those before the last block."""
        blocks = list(self.children)
        end = len(blocks) - 1 if keep_last else len(blocks)
        for block in blocks[self._settled : end]:
            for fence in (block, *block.walk_children()):
                if isinstance(fence, GrowingFence):
                    fence.settle()
        self._settled = max(self._settled, end)

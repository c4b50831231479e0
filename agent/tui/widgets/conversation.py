"""The transcript: user prompts, streamed assistant Markdown, reasoning, tool calls and notes."""

from __future__ import annotations

import json
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from agent.context.mentions import typed_part
from agent.loop.events import ToolCallFinished, ToolCallStarted
from agent.loop.facts import TurnFacts
from agent.tui import format as fmt
from agent.tui.widgets.blocks import FactsBlock, Note, ToolBlock, UserMessage

# Textual lays out every displayed widget of the screen whenever anything changes size, as a
# streaming reply does many times a second; in a long session that work grows with the history
# and the stream falls behind. Only the newest blocks stay displayed; older ones are hidden (not
# removed) and come back, a batch at a time, when the user scrolls to the top.
SHOWN = 20
SLACK = 10  # hide in batches rather than one block per new block


class EarlierBlocks(Static):
    """The note at the top standing for the hidden blocks; clicking it shows them."""

    def on_click(self) -> None:
        self.post_message(Conversation.ShowEarlier())


class Conversation(VerticalScroll):
    """Assistant text and reasoning go through ``MarkdownStream``: fragments queue and are
    appended in batches, so the widget never re-renders the whole reply per token. The view is
    anchored to the bottom until the user scrolls up."""

    class ShowEarlier(Message):
        pass

    def __init__(self) -> None:
        super().__init__(id="conversation")
        self._text: MarkdownStream | None = None
        self._reasoning: MarkdownStream | None = None
        self._tools: dict[str, ToolBlock] = {}

    def compose(self) -> ComposeResult:
        yield EarlierBlocks(classes="note", id="earlier")

    def on_mount(self) -> None:
        self.query_one(EarlierBlocks).display = False
        self.anchor()

    def _blocks(self) -> list[Widget]:
        return [child for child in self.children if not isinstance(child, EarlierBlocks)]

    async def _add(self, widget: Widget) -> None:
        await self.mount(widget)
        self._hide_older()
        self.anchor()  # a new block follows the output again, as when a turn starts

    def _hide_older(self) -> None:
        shown = [block for block in self._blocks() if block.display]
        if len(shown) > SHOWN + SLACK:
            with self.app.batch_update():
                for block in shown[: len(shown) - SHOWN]:
                    block.display = False
            self._count_hidden()

    def _count_hidden(self) -> None:
        hidden = sum(1 for block in self._blocks() if not block.display)
        note = self.query_one(EarlierBlocks)
        note.update(f"▲ {hidden} earlier blocks · scroll to the top or click to show them")
        note.display = hidden > 0

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)  # the scrollbar, the anchor, the repaint
        if new_value == 0 and self.query_one(EarlierBlocks).display:
            self.post_message(self.ShowEarlier())

    @on(ShowEarlier)
    def show_earlier(self) -> None:
        """Display the newest SHOWN hidden blocks, keeping the block at the top in view."""
        blocks = self._blocks()
        hidden = [block for block in blocks if not block.display]
        if not hidden:
            return
        top = next((block for block in blocks if block.display), None)
        with self.app.batch_update():
            for block in hidden[-SHOWN:]:
                block.display = True
        self._count_hidden()
        if top is not None:
            self.call_after_refresh(self.scroll_to_widget, top, top=True, animate=False)

    async def user(self, text: str) -> None:
        await self.close_streams()
        await self._add(UserMessage(text))

    async def text(self, fragment: str) -> None:
        if self._text is None:
            await self.close_streams()
            markdown = Markdown(classes="assistant")
            await self._add(markdown)
            self._text = Markdown.get_stream(markdown)
        await self._text.write(fragment)

    async def reasoning(self, fragment: str) -> None:
        if self._reasoning is None:
            await self.close_streams()
            markdown = Markdown(classes="thought")
            await self._add(Collapsible(markdown, title="Thinking", classes="reasoning"))
            self._reasoning = Markdown.get_stream(markdown)
        await self._reasoning.write(fragment)

    async def tool_started(self, call: ToolCallStarted) -> None:
        await self.close_streams()
        block = ToolBlock(call)
        self._tools[call.call_id] = block
        await self._add(block)

    async def tool_finished(self, done: ToolCallFinished) -> None:
        block = self._tools.pop(done.call_id, None)
        if block is None:  # finished without a start we saw (a refused call): show it whole
            block = ToolBlock(ToolCallStarted(done.call_id, done.name, {}))
            await self._add(block)
        await block.finish(done)

    async def note(self, text: str, level: str = "info") -> None:
        await self.close_streams()
        await self._add(Note(text, level))

    async def facts(self, facts: TurnFacts) -> None:
        """The turn's facts under its answer; nothing for a turn that only talked or read."""
        if facts.lines():
            await self.close_streams()
            await self._add(FactsBlock(facts))

    async def close_streams(self) -> None:
        """Flush and stop the open streams, so the next fragment starts a new block."""
        for stream in (self._text, self._reasoning):
            if stream is not None:
                await stream.stop()
        self._text = self._reasoning = None

    async def clear(self) -> None:
        await self.close_streams()
        self._tools.clear()
        await self.remove_children(self._blocks())
        self._count_hidden()

    async def replay(self, messages: list[dict[str, Any]]) -> None:
        """An earlier session's history, shown compactly and at once (nothing streams)."""
        for message in messages:
            role, text = message.get("role"), _text_of(message.get("content"))
            if role == "user" and text:
                await self._add(UserMessage(typed_part(text)))
            elif role == "assistant":
                if text.strip():
                    await self._add(Markdown(text, classes="assistant"))
                for call in message.get("tool_calls") or []:
                    function = call.get("function") or {}
                    subject = fmt.tool_subject(_arguments(function.get("arguments")))
                    await self._add(Note(f"↳ {function.get('name', '?')}  {subject}"))


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}

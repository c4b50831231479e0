"""The transcript: user prompts, streamed assistant Markdown, reasoning, tool calls and notes."""

from __future__ import annotations

import json
from typing import Any

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown
from textual.widgets.markdown import MarkdownStream

from agent.events import ToolCallFinished, ToolCallStarted
from agent.tui import format as fmt
from agent.tui.widgets.blocks import Note, ToolBlock, UserMessage


class Conversation(VerticalScroll):
    """Assistant text and reasoning go through ``MarkdownStream``: fragments queue and are
    appended in batches, so the widget never re-renders the whole reply per token. The view is
    anchored to the bottom until the user scrolls up."""

    def __init__(self) -> None:
        super().__init__(id="conversation")
        self._text: MarkdownStream | None = None
        self._reasoning: MarkdownStream | None = None
        self._tools: dict[str, ToolBlock] = {}

    def on_mount(self) -> None:
        self.anchor()

    async def _add(self, widget: Widget) -> None:
        await self.mount(widget)
        self.anchor()  # a new block follows the output again, as when a turn starts

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

    async def close_streams(self) -> None:
        """Flush and stop the open streams, so the next fragment starts a new block."""
        for stream in (self._text, self._reasoning):
            if stream is not None:
                await stream.stop()
        self._text = self._reasoning = None

    async def clear(self) -> None:
        await self.close_streams()
        self._tools.clear()
        await self.remove_children()

    async def replay(self, messages: list[dict[str, Any]]) -> None:
        """An earlier session's history, shown compactly and at once (nothing streams)."""
        for message in messages:
            role, text = message.get("role"), _text_of(message.get("content"))
            if role == "user" and text:
                await self._add(UserMessage(text))
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

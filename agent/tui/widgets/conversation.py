"""The transcript: user prompts, streamed assistant Markdown, reasoning, tool calls and notes."""

from __future__ import annotations

import json
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from agent.context.images import attachments, words
from agent.context.mentions import typed_part
from agent.events import (
    CheckFinished,
    CheckStarted,
    SubagentFinished,
    SubagentStarted,
    SubagentStep,
    ToolCallFinished,
    ToolCallStarted,
)
from agent.facts import TurnFacts
from agent.tui import collector
from agent.tui import format as fmt
from agent.tui.widgets.background import SameRows
from agent.tui.widgets.blocks import (
    Attachment,
    CheckBlock,
    FactsBlock,
    Note,
    ToolBlock,
    UserMessage,
)
from agent.tui.widgets.reply import GrowingMarkdown, Transcript
from agent.tui.widgets.scrollbar import QuickScrolling
from agent.tui.widgets.subagent import SubagentBlock

# Textual lays out every displayed widget of the screen whenever anything changes size, as a
# streaming reply does every frame; that work grows with the widgets displayed (a Markdown reply
# is a widget per paragraph, list item and code block), and a long reply or session made the
# stream fall behind. So only the newest blocks stay displayed, as many as fill a few screens;
# older ones are hidden (not removed), the parts of a long reply above the screen included, and
# come back a batch at a time when the user scrolls to the top.
KEEP_WIDGETS = 60  # displayed widgets kept at least (a layout costs ~0.1-0.3 ms per widget)
KEEP_SCREENS = 2  # displayed rows kept at least, in heights of the view
SHOWN = 20  # blocks brought back per scroll to the top


class EarlierBlocks(Static):
    """The note at the top standing for the hidden blocks; clicking it shows them."""

    def on_click(self) -> None:
        self.post_message(Conversation.ShowEarlier())


class Reply(GrowingMarkdown):
    """The assistant's reply as it streams; when an append is in, the conversation hides what
    it pushed far above the screen (the append mounts its blocks after the write returns)."""

    def append(self, markdown: str) -> AwaitComplete:
        appended = super().append(markdown)

        async def then_trim() -> None:
            await appended
            if isinstance(self.parent, Conversation):
                self.parent.trim()

        return AwaitComplete(then_trim())


class Conversation(SameRows, QuickScrolling, VerticalScroll):
    """Assistant text and reasoning are appended to their Markdown as the screen drains them,
    once per frame at most, so the widget never re-renders the whole reply per token; each
    append is awaited, so none is still running when the reply closes. The view is anchored to
    the bottom until the user scrolls up."""

    class ShowEarlier(Message):
        pass

    def __init__(self) -> None:
        super().__init__(id="conversation")
        self._text: Markdown | None = None  # the reply streaming, if any
        self._reasoning: Markdown | None = None
        self._tools: dict[str, ToolBlock] = {}
        self._checks: dict[str, CheckBlock] = {}  # by kind: one check of a kind runs at a time
        self._subagents: dict[str, SubagentBlock] = {}
        self._hidden = 0  # units hidden above
        self._held: set[Markdown] = set()  # streamed replies whose last frame is not out yet

    def compose(self) -> ComposeResult:
        yield EarlierBlocks(classes="note", id="earlier")

    def on_mount(self) -> None:
        self.query_one(EarlierBlocks).display = False
        self.anchor()

    def on_unmount(self) -> None:
        for markdown in self._held:  # an app closed mid-reply
            collector.release(markdown)
        self._held.clear()

    def _blocks(self) -> list[Widget]:
        return [child for child in self.children if not isinstance(child, EarlierBlocks)]

    def _units(self) -> list[Widget]:
        """What is hidden or shown, oldest first: each block of an assistant reply (a long reply
        is mostly above the screen while its end streams), every other block whole."""
        units: list[Widget] = []
        for block in self._blocks():
            units.extend(block.children if isinstance(block, Markdown) else (block,))
        return units

    async def _add(self, widget: Widget) -> None:
        await self.mount(widget)
        self.anchor()  # a new block follows the output again, as when a turn starts
        self.trim()

    def trim(self) -> None:
        """Hide the displayed units older than the newest that hold KEEP_WIDGETS widgets and
        KEEP_SCREENS views of rows; only while the view follows the output, so that nothing
        moves under a user reading above."""
        if self._anchor_released:  # (Textual's own flag; its version is pinned)
            return
        units = self._units()
        widgets, rows, keep_rows = 0, 0, KEEP_SCREENS * self.size.height
        newest_hidden = -1  # none
        for index in range(len(units) - 1, -1, -1):
            unit = units[index]
            if not unit.display:
                continue  # (a replayed reply's blocks may mount after newer ones were hidden)
            if widgets >= KEEP_WIDGETS and rows >= keep_rows:
                newest_hidden = index
                break
            widgets += 1 + len(unit.walk_children())
            rows += max(1, unit.outer_size.height)  # a block not laid out yet has 0
        hiding = [unit for unit in units[: newest_hidden + 1] if unit.display]
        if not hiding:
            return
        with self.app.batch_update():
            for unit in hiding:
                unit.display = False
            self._match_replies(hiding)
        self._hidden += len(hiding)
        self._count_hidden()

    def _match_replies(self, units: list[Widget]) -> None:
        """A reply whose blocks are all hidden is hidden too (its margin would stay)."""
        for reply in {unit.parent for unit in units if isinstance(unit.parent, Markdown)}:
            reply.display = any(block.display for block in reply.children)

    def _count_hidden(self) -> None:
        note = self.query_one(EarlierBlocks)
        note.update(f"▲ {self._hidden} earlier blocks · scroll to the top or click to show them")
        note.display = self._hidden > 0

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)  # the scrollbar, the anchor, the repaint
        if new_value == 0 and self.query_one(EarlierBlocks).display:
            self.post_message(self.ShowEarlier())

    @on(ShowEarlier)
    def show_earlier(self) -> None:
        """Display the newest SHOWN hidden units, keeping the unit at the top in view."""
        units = self._units()
        hidden = [unit for unit in units if not unit.display]
        if not hidden:
            return
        top = next((unit for unit in units if unit.display), None)
        showing = hidden[-SHOWN:]
        with self.app.batch_update():
            for unit in showing:
                unit.display = True
            self._match_replies(showing)
        self._hidden -= len(showing)
        self._count_hidden()
        if top is not None:
            self.call_after_refresh(self.scroll_to_widget, top, top=True, animate=False)

    async def user(self, text: str) -> None:
        await self.close_streams()
        await self._add(UserMessage(text))

    async def text(self, fragment: str) -> None:
        if self._text is None:
            await self.close_streams()
            markdown = Reply(classes="assistant")
            await self._add(markdown)
            self._text = markdown
            self._hold(markdown)
        if fragment:
            await self._text.append(fragment)

    async def reasoning(self, fragment: str) -> None:
        if self._reasoning is None:
            await self.close_streams()
            markdown = Transcript(classes="thought")
            await self._add(Collapsible(markdown, title="Thinking", classes="reasoning"))
            self._reasoning = markdown
            self._hold(markdown)
        if fragment:
            await self._reasoning.append(fragment)

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

    async def check_started(self, start: CheckStarted) -> None:
        await self.close_streams()
        self._checks[start.kind] = block = CheckBlock(start)
        await self._add(block)

    async def check_finished(self, done: CheckFinished) -> None:
        block = self._checks.pop(done.kind, None)
        if block is None:  # not run (denied, plan mode): no start was told
            block = CheckBlock(CheckStarted(done.kind, done.command))
            await self._add(block)
        await block.finish(done)

    async def subagent(self, event: SubagentStarted | SubagentStep | SubagentFinished) -> None:
        """A sub-agent's start mounts its block; its steps and its end update it."""
        if isinstance(event, SubagentStarted):
            await self.close_streams()
            self._subagents[event.task_id] = SubagentBlock(event)
            await self._add(self._subagents[event.task_id])
        elif (block := self._subagents.get(event.task_id)) is not None:
            if isinstance(event, SubagentStep):
                block.step(event)
            else:
                block.finish(event)

    async def attachment(self, line: str, shown: bool) -> None:
        await self.close_streams()
        await self._add(Attachment(line, shown))

    async def note(self, text: str, level: str = "info") -> None:
        await self.close_streams()
        await self._add(Note(text, level))

    async def facts(self, facts: TurnFacts) -> None:
        """The turn's facts under its answer; nothing for a turn that only talked or read."""
        if facts.lines():
            await self.close_streams()
            await self._add(FactsBlock(facts))

    def _hold(self, markdown: Markdown) -> None:
        self._held.add(markdown)
        collector.hold(markdown)

    async def close_streams(self) -> None:
        """End the open streams (their appends are all in), so the next fragment starts a
        new block."""
        for markdown in (self._text, self._reasoning):
            if markdown is not None:
                self.call_after_refresh(self._after_refresh, markdown)
        self._text = self._reasoning = None

    def _after_refresh(self, markdown: Markdown) -> None:
        """The screen can go idle before the last append's widgets have told it what they
        changed (its frame is then still to come): one more refresh first."""
        self.call_after_refresh(self._after_last_frame, markdown)

    def _after_last_frame(self, markdown: Markdown) -> None:
        """Once the reply's last frame is out: its code blocks settled, then the collector
        released. Not before: the full collection the release lets come walks everything the
        process holds (150-250 ms even in a fresh session) and, before the last frame, held
        the end of the reply off the screen that long."""
        if isinstance(markdown, GrowingMarkdown):
            markdown.settle()
        if markdown in self._held:
            self._held.discard(markdown)
            collector.release(markdown)

    async def clear(self) -> None:
        await self.close_streams()
        self._tools.clear()
        await self.remove_children(self._blocks())
        self._hidden = 0
        self._count_hidden()

    async def replay(self, messages: list[dict[str, Any]]) -> None:
        """An earlier session's history, shown compactly and at once (nothing streams)."""
        for message in messages:
            role, text = message.get("role"), _text_of(message.get("content"))
            if role == "user" and text:
                content = message.get("content")
                await self._add(UserMessage(typed_part(words(content))))
                for name, shown in attachments(content):
                    line = f"attached {name}" if shown else f"image {name} left out"
                    await self._add(Attachment(line, shown))
            elif role == "assistant":
                if text.strip():
                    await self._add(Transcript(text, classes="assistant"))
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

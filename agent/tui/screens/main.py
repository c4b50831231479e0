"""The main screen: conversation, prompt, throughput and status lines; runs one turn at a time.

A turn is one exclusive worker awaiting ``agent.run_turn``, which runs on the agent's own loop
(``agent.tui.agent_loop``). The agent's events land in an ``Inbox``; one message per burst wakes
the screen, which drains and renders them in order, so the agent never waits on the UI while it
streams and the UI never renders per token. At a stream's end the agent's thread waits for the
frame that shows it (``_emit``), which is drawn at once (``_on_idle``).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer

from agent.events import (
    CheckFinished,
    CheckStarted,
    ErrorEvent,
    Event,
    HookNote,
    HooksSkipped,
    ImageAttached,
    Notice,
    PermissionDecision,
    PermissionRequest,
    ReasoningDelta,
    RequestStats,
    StepStats,
    SubagentFinished,
    SubagentStarted,
    SubagentStep,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from agent.faces.contract import Core, ServerView
from agent.model.stats import combine
from agent.tui.agent_loop import AgentLoop, resolve
from agent.tui.history import PromptHistory
from agent.tui.inbox import Inbox
from agent.tui.screens.permission import PermissionScreen
from agent.tui.throughput import LiveRate
from agent.tui.undo import CheckpointUndo
from agent.tui.widgets.conversation import Conversation
from agent.tui.widgets.prompt import Prompt
from agent.tui.widgets.server_panel import ServerPanel
from agent.tui.widgets.status import StatusLine, ThroughputLine

STOP_NOTES = {
    "cancelled": ("turn cancelled", "warning"),
    "failed": ("the turn ended after a step that failed", "warning"),
    "max_steps": ("stopped at the step limit", "warning"),
    "tool_failures": ("stopped after repeated tool failures", "warning"),
    "blocked": ("stopped by a hook", "warning"),
}
LIVE_REFRESH_S = 0.25  # the live tok/s estimate is redrawn at most this often
FRAME_S = 1 / 60  # agent events are drained at most once per frame (Textual's 60 fps)
END_WAIT_S = 0.5  # the longest the agent's thread waits for a stream's last frame


class EventsWaiting(Message):
    """The inbox went from empty to non-empty (``now``: drain at once, the stream ended)."""

    def __init__(self, now: bool = False) -> None:
        super().__init__()
        self.now = now


class MainScreen(Screen[None]):
    CSS_PATH = "main.tcss"
    # Here rather than on the app: the screen's own shift+tab (focus previous) would win.
    BINDINGS = [Binding("shift+tab", "app.cycle_mode", "Mode")]
    busy: var[bool] = var(False)

    def __init__(self, undo: CheckpointUndo, history: PromptHistory) -> None:
        super().__init__()
        self.undo = undo
        self.history = history
        self.core: Core | None = None
        self.server_view: ServerView | None = None
        self.connect_failed: str | None = None  # why the last connect failed, until the next
        self.agent_loop = AgentLoop()  # where turns run; closed with the app
        self.inbox = Inbox(lambda: self.post_message(EventsWaiting()))  # (thread-safe)
        self._last_drain = float("-inf")
        self.clock: Callable[[], float] = time.monotonic
        self.turns: list[RequestStats] = []  # one combined figure per turn that asked the model
        self.turns_finished = 0
        self.context_used = 0
        self._steps: list[RequestStats] = []  # this turn's requests so far
        self._live_start: tuple[float, int] | None = None  # (clock, inbox.received) at 1st delta
        self._live_drawn = 0.0
        self._finished_emitted = False
        self._end_drawn = threading.Event()  # a stream's end drained and drawn
        self._end_drained = False  # drained, its frame still to draw
        # (title, body): tells a user away from the terminal (``agent.tui.notify``)
        self.away: Callable[[str, str], None] = lambda title, body: None

    def compose(self) -> ComposeResult:
        yield Conversation()
        yield ServerPanel(id="server-panel")
        yield Prompt(self.undo.workspace, self.history)
        yield ThroughputLine(id="throughput")
        yield StatusLine(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_lines()
        self.query_one("#prompt-input").focus()

    def on_unmount(self) -> None:
        self._end_drawn.set()  # an agent waiting for a frame that will not come goes on
        self.agent_loop.close()  # a turn still running there is cancelled first

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    def refresh_lines(self) -> None:
        facts = self.core.facts if self.core else None
        permissions = self.core.permissions if self.core else None
        self.query_one(StatusLine).show(
            facts,
            permissions.mode if permissions else None,
            self.context_used,
            self.server_view,
            self.busy,
            self.connect_failed is not None,
        )
        turn = combine(self._steps) if self._steps else (self.turns[-1] if self.turns else None)
        live = None
        if self._live_start is not None:
            started, received = self._live_start
            live = LiveRate(self.inbox.received - received, self.clock() - started)
        history = [t.decode_tok_s for t in self.turns]
        self.query_one(ThroughputLine).show(turn, live, facts, history)

    def watch_busy(self, busy: bool) -> None:
        if self.is_mounted:
            # The state class goes on the prompt, not the screen: a class change on the screen
            # restyles every widget of the conversation.
            self.query_one(Prompt).set_class(busy, "-busy")
            self.refresh_lines()

    async def reset(self, replay: list[dict[str, Any]]) -> None:
        """A new or reopened session: empty the view, show its history, restart the figures."""
        await self.conversation.clear()
        await self.conversation.replay(replay)
        self.turns, self._steps, self._live_start, self.context_used = [], [], None, 0
        self.refresh_lines()

    async def start_turn(self, text: str) -> None:
        await self.conversation.user(text)
        self.run_turn(text)

    @work(exclusive=True, group="turn")
    async def run_turn(self, text: str) -> None:
        core = self.core
        assert core is not None, "a turn starts only once connected"
        self.busy = True
        self._steps, self._finished_emitted = [], False
        try:
            finished = await self.agent_loop.run(core.agent.run_turn(text, self._emit))
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this worker is being stopped: the app is closing
            finished = TurnFinished(list(self._steps), "cancelled", "")  # from inside the agent
        except Exception as error:  # the agent failed; the app and the session carry on
            self.inbox.put(ErrorEvent(f"the turn failed: {error}"))
            finished = TurnFinished(list(self._steps), "error", "")
        if not self.is_attached:
            return  # the app closed as the turn ended (on the agent's thread): nothing to show
        if not self._finished_emitted:
            self.inbox.put(finished)
        # Not busy once the end is drawn (``_finish``): the answer queued before it is then on
        # screen, and a user (or a test) who sees the turn idle sees all of it.

    def _emit(self, event: Event) -> None:
        """From the agent's thread."""
        if isinstance(event, TurnFinished):
            self._finished_emitted = True
        if isinstance(event, TextDelta | ReasoningDelta) and self._live_start is None:
            self._live_start = (self.clock(), self.inbox.received)
        if not isinstance(event, StepStats):
            self.inbox.put(event)
            return
        # The stream ended: its last tokens are drained at once, not at the next frame's turn,
        # and drawn before the agent goes on. Its work at a stream's end (the reply checked,
        # the session written) held the GIL while the app drew the last frame, and every
        # hand-over of the GIL between the two threads waits up to the switch interval (5 ms).
        self._end_drawn.clear()
        self.inbox.put(event)
        self.post_message(EventsWaiting(now=True))
        self._end_drawn.wait(END_WAIT_S)

    def cancel_turn(self) -> bool:
        if not self.busy or self.core is None:
            return False
        self.agent_loop.call(self.core.agent.cancel)
        return True

    @on(EventsWaiting)
    async def _drain(self, waiting: EventsWaiting) -> None:
        """Drain at once after a pause or at a stream's end, else at the next frame: a fast
        stream is drawn once per frame, not once per network read (a message per read costs
        more than the drawing)."""
        wait = self._last_drain + FRAME_S - time.monotonic()
        if wait > 0 and not waiting.now:
            self.set_timer(wait, lambda: self.post_message(EventsWaiting()))
            return
        self._last_drain = time.monotonic()
        if waiting.now:  # a stream's end: no frame until all of it is in (see _on_idle)
            with self.app.batch_update():
                for event in self.inbox.take():
                    await self._show(event)
        else:
            for event in self.inbox.take():
                await self._show(event)
        if self._live_start is not None and self.clock() - self._live_drawn >= LIVE_REFRESH_S:
            self._live_drawn = self.clock()
            self.refresh_lines()

    async def _show(self, event: Event) -> None:
        view = self.conversation
        match event:
            case TextDelta(text=text):
                await view.text(text)
            case ReasoningDelta(text=text):
                await view.reasoning(text)
            case ToolCallStarted():
                await view.tool_started(event)
            case ToolCallFinished():
                await view.tool_finished(event)
            case PermissionRequest():
                self._ask(event)
            case CheckStarted():
                await view.check_started(event)
            case CheckFinished():
                await view.check_finished(event)
            case StepStats(stats=stats):
                self._end_drained = True
                self._steps.append(stats)
                self._live_start = None
                self.context_used = stats.prompt_n + stats.cache_n + stats.predicted_n
                self.refresh_lines()
            case Notice(message=message, level=level):
                await view.note(message, level)
            case ErrorEvent(message=message):
                await view.note(message, "error")
            case ImageAttached():
                await view.attachment(event.line(), event.shown)
            case HookNote():
                await view.note(event.line(), "info" if event.kind == "output" else "warning")
            case HooksSkipped():
                await view.note(event.line(), "warning")
            case SubagentStarted() | SubagentStep() | SubagentFinished():
                await view.subagent(event)
            case TurnFinished():
                await self._finish(event)

    async def _on_idle(self, event: events.Idle) -> None:
        """After a stream's end is drained, its frame is drawn as soon as the widgets have
        told the screen what changed (its queue is empty), not at the next tick of Textual's
        60 fps update timer, up to a frame later; then the agent's thread goes on. (Before
        ``Screen._on_idle``, which then finds nothing left to draw.)"""
        if self._end_drained and not self.app._batch_count:
            self._end_drained = False
            if self.is_current:  # (under another screen, nothing of it is drawn)
                self._on_timer_update()  # (Textual's frame; its version is pinned)
            self._end_drawn.set()

    def _ask(self, request: PermissionRequest) -> None:
        def answer(decision: PermissionDecision | None) -> None:
            if decision is not None:
                resolve(request.future, decision)  # on the agent's loop

        if not request.future.done():
            self.app.push_screen(PermissionScreen(request), answer)
            self.away("beecode needs your approval", f"{request.tool} {request.subject[:80]}")

    async def _finish(self, finished: TurnFinished) -> None:
        await self.conversation.close_streams()
        turn = combine(finished.stats or self._steps)
        if turn is not None:
            self.turns.append(turn)
        self._steps, self._live_start = [], None
        await self.conversation.facts(finished.facts)
        note = STOP_NOTES.get(finished.stop_reason)
        if note is not None:
            await self.conversation.note(*note)
        self.busy = False
        self.refresh_lines()
        if finished.stop_reason != "cancelled":
            self.away("beecode is done", finished.final_text or finished.stop_reason)
        self.turns_finished += 1  # counted once drawn: the tests and benchmarks wait on it

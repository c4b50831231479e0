"""beecode's Textual app: connects to the agent off the UI thread, routes prompts and commands.

``run`` is the entry the CLI calls. Startup stays fast: the app shows the prompt at once and builds
the agent (openai, the server, the session) in a thread worker while the user types.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from agent.config import Config, ignored_note
from agent.faces.contract import Backend, ConnectRequest, Core, ServerView
from agent.permissions.rules import MODES
from agent.tui import commands
from agent.tui.completion import McpOffers
from agent.tui.history import PromptHistory
from agent.tui.notify import AwayNotifier
from agent.tui.screens.info import PickScreen
from agent.tui.screens.main import MainScreen
from agent.tui.slash import SlashCommands
from agent.tui.undo import CheckpointUndo
from agent.tui.widgets.prompt import Prompt
from agent.tui.widgets.server_panel import ServerPanel

QUIT_WINDOW_S = 2.0  # a second Ctrl+C within this many seconds quits
SERVER_POLL_S = 5.0
LOG_LINES = 12


class BeeApp(App[None]):
    TITLE = "beecode"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("ctrl+c", "interrupt", "Quit (twice)", priority=True),
        Binding("f2", "toggle_server", "Server"),
        Binding("f1", "slash('help')", "Help"),
    ]

    def __init__(
        self,
        backend: Backend,
        request: ConnectRequest | None = None,
        history_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.backend = backend
        self.core: Core | None = None
        self._request = request or ConnectRequest()
        self._pending: str | None = None  # a prompt typed before the agent was ready
        self._last_interrupt = -QUIT_WINDOW_S
        self._progress: dict[str, str] = {}  # a start or restart in progress: key -> line
        self._panel_for_progress = False  # the server panel was opened to show that progress
        self._polled: ServerView | None = None
        self.main = MainScreen(CheckpointUndo(backend.workspace), PromptHistory(history_path))
        self.slash = SlashCommands(self)
        backend.ask_mcp = self._ask_mcp
        config = getattr(backend, "config", None)
        mode = config.notifications if isinstance(config, Config) else "auto"
        self.main.away = AwayNotifier(self, mode)

    def on_mount(self) -> None:
        self.push_screen(self.main)
        # After the first paint: the connect thread's imports would compete for the GIL.
        self.call_after_refresh(self.connect, self._request)
        self.poll_server()
        self.set_interval(SERVER_POLL_S, self.poll_server)

    # Connecting: in a thread, since building the agent imports and talks to the server.

    @work(thread=True, exclusive=True, group="connect", exit_on_error=False)
    def connect(self, request: ConnectRequest) -> None:
        self.call_from_thread(self._connecting)
        try:
            core = self.backend.connect(request, self._report_progress)
        except Exception as error:  # a one-line message from the core (server, config, session)
            # Textual infers an async callback's result as Never: its typing, not ours.
            self.call_from_thread(self._connect_failed, str(error))  # type: ignore[arg-type]
            return
        offers = self._mcp_offers()
        self.call_from_thread(self._connected, core, request, offers)  # type: ignore[arg-type]

    def _mcp_offers(self) -> McpOffers:
        """From a thread: the MCP prompts and resources for completion (servers that came up
        later are in the next poll's)."""
        return McpOffers(self.backend.extras("prompts"), self.backend.extras("resources"))

    def _ask_mcp(self, servers: dict[str, str]) -> bool:
        """From the connect thread: may this project's MCP servers start? (PickScreen answers.)"""
        answer: Future[str | None] = Future()
        listed = "; ".join(f"{name}: {command}" for name, command in servers.items())
        options = [("start", f"Start them (remembered for this folder): {listed}")]
        options.append(("skip", "Not now (beecode mcp approve NAME later)"))
        title = "This project configures MCP servers (commands it would run)"
        self.call_from_thread(self.push_screen, PickScreen(title, options), answer.set_result)
        return answer.result() == "start"

    def _report_progress(self, key: str, line: str) -> None:
        self.call_from_thread(self._progress_line, key, line)

    def _progress_line(self, key: str, line: str) -> None:
        self._set_progress({**self._progress, key: line})

    def _set_progress(self, lines: dict[str, str]) -> None:
        panel = self.main.query_one(ServerPanel)
        if lines and not panel.display:
            panel.display = self._panel_for_progress = True
        elif not lines and self._panel_for_progress:
            panel.display = self._panel_for_progress = False  # opened for progress: close again
        self._progress = lines
        self._show_server()

    def _connecting(self) -> None:
        self.main.connect_failed = None
        self._set_progress({})

    async def _connect_failed(self, message: str) -> None:
        """The start is over: its progress goes, the status says so, and a prompt typed while it
        ran is given back, not kept for a connection that will not come."""
        self.main.connect_failed = message
        self._set_progress({})
        await self.main.conversation.note(
            f"could not start the agent: {message} (/clear tries again)", "error"
        )
        if self._pending is not None:
            self.main.query_one(Prompt).set_text(self._pending)
            self._pending = None

    async def _connected(self, core: Core, request: ConnectRequest, offers: McpOffers) -> None:
        first, previous = self.core is None, self.core
        self.core = self.main.core = core
        self.main.query_one(Prompt).mcp = offers  # /server:prompt and @server:uri completions
        self._set_progress({})
        changed = previous is not None and core.session_id != previous.session_id
        if changed or (first and (request.resume or request.continue_latest)):
            await self.main.reset(replay=core.agent.messages)
        if (source := core.forked_from) is not None:
            await self.main.conversation.note(
                f"forked: this conversation goes on in the new session {core.session_id}; the "
                f"original {source} is left as it was (/resume {source} or `beecode -r {source}` "
                "goes back to it)"
            )
        self.main.refresh_lines()
        self.poll_server()
        config = getattr(self.backend, "config", None)
        if first and isinstance(config, Config) and (note := ignored_note(config)):
            await self.main.conversation.note(note, "warning")
        if self._pending is not None:
            text, self._pending = self._pending, None
            await self.main.start_turn(text)

    # The server: polled in a thread (it reads state files and may ask the server).

    @work(thread=True, exclusive=True, group="server-poll", exit_on_error=False)
    def poll_server(self) -> None:
        view = self.backend.server(LOG_LINES)
        self.call_from_thread(self._server_polled, view, self._mcp_offers())

    def _server_polled(self, view: ServerView, offers: McpOffers) -> None:
        self._polled = view
        self.main.query_one(Prompt).mcp = offers
        self._show_server()

    def _show_server(self) -> None:
        """The status line and the panel from the last poll and any start in progress."""
        view = self._polled or ServerView(state="starting")
        if self._progress and view.state == "down":
            view = replace(view, state="starting", can_restart=False)
        elif self.main.connect_failed is not None and view.state in ("down", "starting"):
            view = replace(view, state="failed")
        self.main.server_view = view
        self.main.refresh_lines()
        self.main.query_one(ServerPanel).show(view, list(self._progress.values()))

    @on(ServerPanel.RestartPressed)
    def _restart_pressed(self) -> None:
        if self.main.busy:
            self.notify("A turn is running: esc cancels it first.", severity="warning")
        else:
            self.restart_server()

    @work(thread=True, exclusive=True, group="server-restart", exit_on_error=False)
    def restart_server(self) -> None:
        try:
            self.backend.restart_server(self._report_progress)
        except Exception as error:  # a one-line server error
            self.call_from_thread(self.notify, str(error), severity="error")
            self.call_from_thread(self._set_progress, {})
            return
        # The restarted server may listen elsewhere: reconnect, keeping the session.
        session = self.core.session_id if self.core else None
        self.call_from_thread(self.connect, ConnectRequest(resume=session))

    # Prompts and keys.

    @on(Prompt.Submitted)
    async def _submitted(self, message: Prompt.Submitted) -> None:
        parsed = commands.parse(message.text)
        if parsed is not None:
            await self.slash.run(*parsed)
        elif self.main.busy:
            self.main.query_one(Prompt).set_text(message.text)
            self.notify("A turn is running: esc cancels it.", severity="warning")
        elif self.core is None and self.main.connect_failed is not None:
            self.main.query_one(Prompt).set_text(message.text)
            self.notify(f"not connected: {self.main.connect_failed}", severity="error")
        elif self.core is None:
            self._pending = message.text
            await self.main.conversation.user(message.text)
            await self.main.conversation.note("connecting… the prompt goes out when ready")
        else:
            await self.main.start_turn(message.text)

    def action_cancel_turn(self) -> None:
        self.main.cancel_turn()

    def action_interrupt(self) -> None:
        now = time.monotonic()
        if now - self._last_interrupt < QUIT_WINDOW_S:
            self.exit()
            return
        self._last_interrupt = now
        self.main.cancel_turn()
        self.notify(
            f"Press Ctrl+C again within {QUIT_WINDOW_S:g} s to quit.", timeout=QUIT_WINDOW_S
        )

    def action_cycle_mode(self) -> None:
        permissions = self.core.permissions if self.core else None
        if permissions is not None:
            current = MODES.index(permissions.mode) if permissions.mode in MODES else -1
            self.slash.set_mode(MODES[(current + 1) % len(MODES)])

    def action_toggle_server(self) -> None:
        panel = self.main.query_one(ServerPanel)
        panel.display = not panel.display
        self._panel_for_progress = False  # the user's choice from now on
        if panel.display:
            self.poll_server()

    async def action_slash(self, name: str) -> None:
        await self.slash.run(name, "")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for command in commands.COMMANDS:
            run = partial(self.slash.run, command.name, "")
            yield SystemCommand(f"/{command.name}", command.help, run)


def run_app(backend: Backend, request: ConnectRequest, history_path: Path | None) -> int:
    """Run the TUI until the user quits; then stop a server the app itself started."""
    app = BeeApp(backend, request, history_path)
    try:
        app.run()
    finally:
        backend.shutdown()
    return app.return_code or 0


def run(
    workspace: Path,
    config: Config,
    resume: str | None = None,
    continue_latest: bool = False,
    fork: bool = False,
) -> int:
    """The CLI's entry (``beecode`` with no task): the real agent on the managed server."""
    from agent.runtime import Runtime, prompt_history_path

    return run_app(
        Runtime(workspace, config),
        ConnectRequest(resume=resume, continue_latest=continue_latest, fork=fork),
        prompt_history_path(),
    )

"""The slash commands' behaviour. Each one either does its job or says in one line why it can't;
none pretends. Blocking work (git, session files, the server) runs in worker threads."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.content import Content

from agent.commands.load import listing
from agent.commands.registry import Command
from agent.config import Mode
from agent.faces.contract import ConnectRequest, SessionRow
from agent.model.stats import TurnFigures
from agent.permissions.rules import MODES
from agent.tui import commands
from agent.tui import format as fmt
from agent.tui.gitdiff import NotARepository, uncommitted
from agent.tui.screens.info import PickScreen, TableScreen, TextScreen
from agent.tui.undo import steps_of
from agent.tui.widgets.blocks import diff_content

if TYPE_CHECKING:
    from agent.tui.app import BeeApp

PROMPT_KEYS = (
    ("enter", "send the prompt"),
    ("shift+enter, ctrl+j, \\ enter", "new line"),
    ("↑ ↓", "prompt history"),
    ("tab", "accept a completion (/command, @path)"),
    ("ctrl+p", "command palette"),
)
STATS_COLUMNS = ("turn", "tok/s", "output", "draft acc/prop", "from drafts", "cached/new", "wall")
# The drafts column where a turn drafted nothing (agent.model.stats.TurnFigures.speculation).
_DRAFTS = {"idle": "0", "idle_constrained": "0 (schema)", "off": "off", "unknown": "-"}


class SlashCommands:
    def __init__(self, app: BeeApp) -> None:
        self.app = app

    async def run(self, name: str, arg: str) -> None:
        handler = getattr(self, f"cmd_{name}", None)
        if name in commands.BY_NAME and handler is not None:
            await handler(arg)
            return
        loaded = await asyncio.to_thread(commands.workspace_commands, self.app.backend.workspace)
        command = loaded.registry.get(name) if loaded is not None else None
        prompts = [n.lower() for n in self.app.backend.extras("prompts")]  # MCP prompts
        if command is None and name in prompts:
            command = Command(name, "", kind="prompt")
        if command is None:
            await self.note(f"unknown command /{name} (/help lists them)", "warning")
        elif not await self._idle(name):
            return
        elif self.app.core is None:
            await self.note(f"/{name}: not connected yet", "warning")
        else:
            # The core runs it: a skill's body, or the custom command's prompt, becomes the turn.
            await self.app.main.start_turn(f"/{command.name} {arg}".rstrip())

    async def note(self, text: str, level: str = "info") -> None:
        await self.app.main.conversation.note(text, level)

    def _background(self, job: Awaitable[None]) -> None:
        self.app.run_worker(job, group="slash", exit_on_error=False)

    async def _idle(self, name: str) -> bool:
        """True when no turn runs; otherwise says why /name has to wait."""
        if self.app.main.busy:
            await self.note(f"/{name}: a turn is running (esc cancels it)", "warning")
            return False
        return True

    async def cmd_help(self, arg: str) -> None:
        lines: list[tuple[str, str] | str] = [("Keys\n", "bold")]
        bindings = [*self.app.BINDINGS, *self.app.main.BINDINGS]
        keys = [(b.key, b.description) for b in bindings if isinstance(b, Binding)]
        for key, about in [*PROMPT_KEYS, *keys]:
            lines += [(f"  {key:<30}", "$text-accent"), f"{about}\n"]
        lines.append(("\nCommands\n", "bold"))
        listed = await asyncio.to_thread(commands.known, self.app.backend.workspace)
        for command in listed:
            lines += [(f"  /{command.name} {command.args}".ljust(32), "$text-accent")]
            lines.append(f"{command.help}\n")
        self.app.push_screen(TextScreen("beecode help", Content.assemble(*lines)))

    async def cmd_clear(self, arg: str) -> None:
        if await self._idle("clear"):
            self.app.connect(ConnectRequest())

    async def cmd_compact(self, arg: str) -> None:
        core = self.app.core
        if not await self._idle("compact"):
            return
        if core is None or core.compact is None:
            await self.note("/compact: not available with this agent yet", "warning")
            return
        compact = core.compact

        async def job() -> None:
            # On the agent's loop, where its model client and its turns run.
            await self.note(str(await self.app.main.agent_loop.run(compact()) or "compacted"))
            self.app.main.refresh_lines()

        self._background(job())

    def _pick(
        self,
        title: str,
        load: Callable[[], list[tuple[str, str]]],
        empty: str,
        then: Callable[[str], Awaitable[None]],
    ) -> None:
        """Load (id, label) options in a thread, let the user pick one, then act on its id."""

        async def job() -> None:
            options = await asyncio.to_thread(load)
            if not options:
                await self.note(empty)
                return
            picked = await self.app.push_screen_wait(PickScreen(title, options))
            if picked:
                await then(picked)

        self._background(job())

    async def cmd_resume(self, arg: str) -> None:
        if not await self._idle("resume"):
            return
        if arg:
            self.app.connect(ConnectRequest(resume=arg))
            return
        self._pick(
            "Resume a session",
            lambda: [
                (r.id, f"{r.updated}  {_titled(r)}  ({r.n_messages} messages)")
                for r in self.app.backend.sessions()
            ],
            "no earlier sessions in this workspace",
            self.cmd_resume,
        )

    async def cmd_fork(self, arg: str) -> None:
        if not await self._idle("fork"):
            return
        session = self.app.core.session_id if self.app.core else None
        if session is None:
            await self.note("/fork: no session to fork yet", "warning")
            return
        self.app.connect(ConnectRequest(resume=session, fork=True))

    async def cmd_sessions(self, arg: str) -> None:
        async def job() -> None:
            rows = await asyncio.to_thread(self.app.backend.sessions)
            table = [(r.id, r.updated, str(r.n_messages), _titled(r)) for r in rows]
            columns = ("id", "updated", "messages", "title")
            self.app.push_screen(TableScreen("Sessions (/resume ID reopens one)", columns, table))

        self._background(job())

    async def cmd_model(self, arg: str) -> None:
        if not await self._idle("model"):
            return
        if arg:
            await self.note(f"switching to profile {arg}…")
            session = self.app.core.session_id if self.app.core else None
            self.app.connect(ConnectRequest(resume=session, profile=arg))
            return
        self._pick(
            "Switch profile",
            lambda: [(name, name) for name in self.app.backend.profiles()],
            "/model: no profiles to switch to (the endpoint is fixed)",
            self.cmd_model,
        )

    async def cmd_mode(self, arg: str) -> None:
        if not arg:
            self._pick("Permission mode", lambda: [(m, m) for m in MODES], "", self.cmd_mode)
        elif (mode := next((m for m in MODES if m == arg), None)) is None:
            await self.note(f"unknown mode {arg!r} (one of {', '.join(MODES)})", "warning")
        else:
            self.set_mode(mode)

    def set_mode(self, mode: Mode) -> None:
        core = self.app.core
        if core is None or core.permissions is None:
            self.app.notify("Not connected yet.", severity="warning")
            return
        core.permissions.mode = mode
        self.app.main.refresh_lines()
        self.app.notify(f"Permission mode: {mode}")

    async def cmd_undo(self, arg: str) -> None:
        await self._checkpoint("undo", arg, lambda steps: self.app.main.undo.undo(steps))

    async def cmd_redo(self, arg: str) -> None:
        await self._checkpoint("redo", "", lambda _steps: self.app.main.undo.redo())

    async def cmd_rewind(self, arg: str) -> None:
        core = self.app.core
        if core is None:
            await self.note("/rewind: not connected yet", "warning")
            return
        messages = core.agent.messages
        await self._checkpoint(
            "rewind", arg, lambda n: self.app.main.undo.rewind(n, core.session_id, messages)
        )

    async def _checkpoint(
        self, name: str, arg: str, action: Callable[[int], tuple[str, bool]]
    ) -> None:
        if not await self._idle(name):
            return
        steps = steps_of(arg)
        if steps is None:
            await self.note(f"/{name}: N must be a positive number, got {arg!r}", "warning")
            return
        line, worked = await asyncio.to_thread(action, steps)
        await self.note(line if worked else f"/{name}: {line}", "info" if worked else "warning")

    async def cmd_diff(self, arg: str) -> None:
        async def job() -> None:
            try:
                diff, untracked = await asyncio.to_thread(uncommitted, self.app.backend.workspace)
            except NotARepository as error:
                await self.note(f"/diff: {error}", "warning")
                return
            if not diff and not untracked:
                await self.note("no uncommitted changes")
                return
            body = diff_content(diff)
            if untracked:
                body = body + Content.styled("\nuntracked: " + ", ".join(untracked), "bold")
            self.app.push_screen(TextScreen("Uncommitted changes", body))

        self._background(job())

    async def cmd_stats(self, arg: str) -> None:
        rows = []
        facts = self.app.main.core.facts if self.app.main.core else None
        speculative = facts.speculative if facts else None
        for number, turn in enumerate(self.app.main.turns, start=1):
            figures = TurnFigures.of(turn, speculative=speculative)
            drafts = _DRAFTS.get(figures.speculation, f"{turn.draft_accepted}/{turn.draft_n}")
            share = turn.accepted_share
            rows.append(
                (
                    str(number),
                    f"{turn.decode_tok_s:.1f}" + ("" if turn.source == "server" else " (client)"),
                    str(turn.predicted_n),
                    drafts,
                    fmt.percent(share) if share is not None and turn.draft_n else "-",
                    f"{fmt.tokens(turn.cache_n)}/{fmt.tokens(turn.prompt_n)}",
                    fmt.duration(turn.wall_s),
                )
            )
        self.app.push_screen(TableScreen("Turn stats", STATS_COLUMNS, rows))

    async def cmd_context(self, arg: str) -> None:
        core = self.app.core
        if core is None or core.context is None:
            await self.note("/context: not available with this agent", "warning")
            return
        lines = await asyncio.to_thread(core.context)  # counting may ask the server
        self.app.push_screen(TextScreen("Context", Content("\n".join(lines))))

    async def cmd_server(self, arg: str) -> None:
        self.app.action_toggle_server()

    async def _extras(self, what: str) -> None:
        lines = await asyncio.to_thread(self.app.backend.extras, what)
        if not lines:
            await self.note(f"/{what}: not available yet")
        else:
            self.app.push_screen(TextScreen(f"/{what}", Content("\n".join(lines))))

    async def cmd_mcp(self, arg: str) -> None:
        self._background(self._extras("mcp"))

    async def cmd_skills(self, arg: str) -> None:
        async def job() -> None:
            workspace = self.app.backend.workspace
            loaded = await asyncio.to_thread(commands.workspace_commands, workspace, refresh=True)
            if loaded is None:
                await self.note("/skills: the config has an error (see beecode skills list)")
                return
            text = "\n".join(listing(loaded)) + "\n\nRun one with /NAME ARGS."
            self.app.push_screen(TextScreen("Skills and custom commands", Content(text)))

        self._background(job())

    async def cmd_agents(self, arg: str) -> None:
        self._background(self._extras("agents"))

    async def cmd_bench(self, arg: str) -> None:
        self._background(self._extras("bench"))

    async def cmd_quit(self, arg: str) -> None:
        self.app.exit()


def _titled(row: SessionRow) -> str:
    """A session's title, and which session it is a fork of."""
    return f"{row.title}  (fork of {row.forked_from})" if row.forked_from else row.title

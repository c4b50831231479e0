"""The server panel (toggled with /server or F2): engine, launch command, log tail, restart."""

from __future__ import annotations

import shlex

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static

from agent.faces.contract import ServerView


class ServerPanel(Vertical):
    class RestartPressed(Message):
        pass

    def compose(self) -> ComposeResult:
        with Horizontal(id="server-head"):
            yield Static(id="server-summary")
            yield Button("Restart", id="server-restart", variant="warning", compact=True)
        yield Static(id="server-command", classes="command")
        yield Static(id="server-log", classes="log")

    def show(self, view: ServerView, progress: list[str]) -> None:
        """Render ``view``; ``progress`` holds the lines of a start or restart in progress."""
        summary: list[tuple[str, str] | str] = [("server ", "bold"), (view.state, "bold")]
        for label, value in (("url", view.url), ("profile", view.profile), ("engine", view.engine)):
            if value:
                summary.append((f" · {label} ", "dim"))
                summary.append(value)
        self.query_one("#server-summary", Static).update(Content.assemble(*summary))
        self.query_one("#server-restart", Button).display = view.can_restart
        command = shlex.join(view.command) if view.command else "(no launch command recorded)"
        self.query_one("#server-command", Static).update(Content(command))
        lines = progress or view.log_tail
        self.query_one("#server-log", Static).update(Content("\n".join(lines) or "(no log)"))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RestartPressed())

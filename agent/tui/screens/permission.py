"""The permission modal: what will run or change, and the four answers the agent understands."""

from __future__ import annotations

from typing import get_args

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static
from textual.widgets.button import ButtonVariant

from agent.events import PermissionChoice, PermissionDecision, PermissionRequest
from agent.tui.agent_loop import when_done
from agent.tui.widgets.blocks import diff_content

CHOICES: tuple[PermissionChoice, ...] = get_args(PermissionChoice)

VERBS = {"edit": "change files", "execute": "run a command", "read": "read files"}
# (label, key, decision, button variant); the keys are the screen's bindings below.
ANSWERS: tuple[tuple[str, str, str, ButtonVariant], ...] = (
    ("Allow once", "y", "allow_once", "success"),
    ("Allow always", "a", "allow_always", "primary"),
    ("Deny", "n", "deny", "error"),
    ("Deny with message", "m", "deny_with_message", "default"),
)


def looks_like_diff(text: str) -> bool:
    return text.startswith(("--- ", "@@", "diff ")) or "\n@@ " in text


class PermissionScreen(ModalScreen[PermissionDecision | None]):
    """Dismissed with the user's decision, or None when the request went away unanswered."""

    CSS_PATH = "permission.tcss"
    BINDINGS = [
        Binding("y", "answer('allow_once')", "Allow once"),
        Binding("a", "answer('allow_always')", "Allow always"),
        Binding("n", "answer('deny')", "Deny"),
        Binding("m", "ask_message", "Deny with message"),
        Binding("escape", "answer('deny')", "Deny", show=False),
    ]

    def __init__(self, request: PermissionRequest) -> None:
        super().__init__()
        self.request = request
        self._answered = False

    def compose(self) -> ComposeResult:
        request = self.request
        verb = VERBS.get(request.kind, request.kind)
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(
                    f"{request.agent} agent: " if request.agent else "",
                    "Allow ",
                    (request.tool, "bold"),
                    f" to {verb}?",
                ),
                id="question",
            )
            yield Static(Content(request.subject), id="subject")
            if request.preview.strip() and request.preview.strip() != request.subject.strip():
                body = request.preview
                shown = diff_content(body) if looks_like_diff(body) else Content(body)
                with VerticalScroll(id="preview"):
                    yield Static(shown)
            with Horizontal(id="answers"):
                for label, key, answer, variant in ANSWERS:
                    yield Button(
                        Content(f"{label} [{key}]"), id=answer, variant=variant, compact=True
                    )
            yield Input(placeholder="Tell the model why, then Enter", id="message")

    def on_mount(self) -> None:
        self.query_one("#message").display = False
        # Resolved elsewhere (the turn was cancelled): nothing left to answer. The future is
        # the agent's, done on its thread: the screen hears of it by a (thread-safe) message.
        when_done(self.request.future, lambda: self.post_message(self.Unanswered()))

    class Unanswered(Message):
        """The request's future is done (by the screen's answer, or by a cancelled turn)."""

    @on(Unanswered)
    def _close_if_open(self) -> None:
        if not self._answered:
            self._finish(None)

    def _finish(self, decision: PermissionDecision | None) -> None:
        self._answered = True
        self.dismiss(decision)

    def action_answer(self, choice: str) -> None:
        # Bindings and button ids name the answer as a plain string.
        self._finish(PermissionDecision(next(c for c in CHOICES if c == choice)))

    def action_ask_message(self) -> None:
        box = self.query_one("#message", Input)
        box.display = True
        box.focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "deny_with_message":
            self.action_ask_message()
        elif event.button.id:
            self.action_answer(event.button.id)

    @on(Input.Submitted, "#message")
    def _message(self, event: Input.Submitted) -> None:
        self._finish(PermissionDecision("deny_with_message", event.value.strip()))

"""The prompt: multi-line input with history, completion of slash commands (MCP prompts too),
``@path`` and ``@server:uri``."""

from __future__ import annotations

from pathlib import Path

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from agent.tui.completion import Completion, McpOffers, complete
from agent.tui.history import PromptHistory
from agent.tui.paste import dropped_images

NEWLINE_KEYS = ("shift+enter", "ctrl+j", "alt+enter")
PLACEHOLDER = "Ask beecode…  / commands · @ files · shift+enter or ctrl+j: new line · ↑ history"


class CompletionMenu(OptionList, can_focus=False):
    """Shown above the input while the fragment at the cursor has completions."""


class PromptInput(TextArea):
    """Enter submits; the newline keys (or a trailing backslash) continue on a new line."""

    def __init__(self, owner: Prompt) -> None:
        super().__init__(
            id="prompt-input",
            soft_wrap=True,
            show_line_numbers=False,
            highlight_cursor_line=False,
            compact=True,
            placeholder=PLACEHOLDER,
        )
        self.owner = owner

    async def _on_key(self, event: events.Key) -> None:
        if self.owner.take_key(event.key):
            event.stop()
            event.prevent_default()

    async def _on_paste(self, event: events.Paste) -> None:
        """Image files' paths (a file dropped on the terminal) go in as the mentions that
        attach them; an image outside the workspace is told, not attached."""
        dropped = dropped_images(event.text, self.owner.workspace)
        if dropped is None:
            return  # TextArea inserts the text
        event.stop()
        event.prevent_default()
        if dropped.outside:
            shown = ", ".join(dropped.outside)
            self.notify(f"not attached, outside the workspace: {shown}", severity="warning")
        if dropped.mentions and not self.read_only:
            row, column = self.cursor_location
            before = self.document.get_line(row)[:column]
            space = " " if before and not before[-1].isspace() else ""
            self.insert(space + " ".join(dropped.mentions) + " ")


class Prompt(Vertical):
    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, workspace: Path, history: PromptHistory) -> None:
        super().__init__(id="prompt")
        self.workspace = workspace
        self.history = history
        self._completion: Completion | None = None
        self.mcp = McpOffers()  # set by the app once connected

    def compose(self) -> ComposeResult:
        yield CompletionMenu(id="completions")
        yield PromptInput(self)

    @property
    def input(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def menu(self) -> CompletionMenu:
        return self.query_one(CompletionMenu)

    def take_key(self, key: str) -> bool:
        """Keys the prompt takes before the text area; True when handled."""
        area = self.input
        if self._completion is not None:
            if key in ("up", "down"):
                getattr(self.menu, f"action_cursor_{key}")()
                return True
            if key in ("tab", "enter"):
                accepted = self._accept()
                if key == "enter" and accepted.startswith("/"):
                    self._submit()  # enter on a command runs it; tab only completes
                return True
            if key == "escape":
                self._show_completion(None)
                return True
        if key in NEWLINE_KEYS:
            area.insert("\n")
            return True
        if key == "enter":
            row, column = area.cursor_location
            if column > 0 and area.document.get_line(row)[column - 1] == "\\":
                area.replace("\n", (row, column - 1), (row, column))
            else:
                self._submit()
            return True
        if key == "up" and area.cursor_at_first_line:
            return self._recall(self.history.older(area.text))
        if key == "down" and area.cursor_at_last_line:
            return self._recall(self.history.newer())
        return False

    def _recall(self, text: str | None) -> bool:
        if text is None:
            return False
        self.input.load_text(text)
        self.input.move_cursor(self.input.document.end)
        return True

    def _submit(self) -> None:
        text = self.input.text.strip()
        if not text:
            return
        self.history.add(text)
        self.input.clear()
        self.post_message(self.Submitted(text))

    @on(TextArea.Changed)
    def _update_completion(self) -> None:
        area = self.input
        row, column = area.cursor_location
        line = area.document.get_line(row)
        self._show_completion(complete(line, column, row == 0, self.workspace, self.mcp))

    def _show_completion(self, completion: Completion | None) -> None:
        self._completion = completion
        menu = self.menu
        menu.display = completion is not None
        if completion is None:
            return
        menu.set_options(
            Option(Content.assemble((value, "bold"), (f"  {about}", "dim")), id=value)
            for value, about in completion.options
        )
        menu.highlighted = 0

    def _accept(self) -> str:
        """Put the highlighted completion in place of the fragment; returns it ("" if none)."""
        completion, index = self._completion, self.menu.highlighted
        if completion is None or index is None:
            return ""
        value = completion.options[index][0]
        row = self.input.cursor_location[0]
        # A directory keeps completing inside it; anything else ends with a space.
        suffix = "" if value.endswith("/") else " "
        self.input.replace(value + suffix, (row, completion.start), (row, completion.end))
        if suffix:
            self._show_completion(None)
        return value

    def set_text(self, text: str) -> None:
        self.input.load_text(text)
        self.input.move_cursor(self.input.document.end)

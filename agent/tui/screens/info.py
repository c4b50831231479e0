"""Modal screens that show something and close: text (/help, /diff, /mcp), a table (/stats),
and a list to pick from (/resume, /model)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

CLOSE: list[BindingType] = [Binding("escape,q", "close", "Close")]
T = TypeVar("T")


class _Modal(ModalScreen[T]):
    CSS_PATH = "info.tcss"
    BINDINGS = CLOSE

    def __init__(self, title: str) -> None:
        super().__init__()
        self.heading = title

    def action_close(self) -> None:
        self.dismiss(None)


class TextScreen(_Modal[None]):
    def __init__(self, title: str, body: Content) -> None:
        super().__init__(title)
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled(self.heading, "bold"), id="title")
            with VerticalScroll(id="body"):
                yield Static(self.body)
            yield Static(Content.styled("esc to close", "dim"), id="hint")


class TableScreen(_Modal[None]):
    def __init__(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        super().__init__(title)
        self.columns = columns
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled(self.heading, "bold"), id="title")
            table: DataTable[str] = DataTable(id="table", cursor_type="row", zebra_stripes=True)
            table.add_columns(*self.columns)
            table.add_rows(self.rows)
            yield table
            yield Static(Content.styled("esc to close", "dim"), id="hint")


class PickScreen(_Modal[str | None]):
    """Dismissed with the picked option's id, or None."""

    def __init__(self, title: str, options: Sequence[tuple[str, str]]) -> None:
        super().__init__(title)
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled(self.heading, "bold"), id="title")
            yield OptionList(*(Option(label, id=key) for key, label in self.options), id="pick")
            yield Static(Content.styled("enter to choose · esc to close", "dim"), id="hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

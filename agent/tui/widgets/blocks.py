"""The blocks a conversation is made of: user messages, notes, errors, tool calls and diffs."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Collapsible, Static

from agent.events import CheckFinished, CheckStarted, ToolCallFinished, ToolCallStarted
from agent.facts import TurnFacts
from agent.tui import format as fmt

OUTPUT_LINES = 40  # tool output kept on screen (the model saw all of it)


def diff_content(diff: str) -> Content:
    """A unified diff coloured line by line."""
    lines: list[Content] = []
    for line in diff.rstrip("\n").splitlines():
        if line.startswith(("+++", "---", "diff ")):
            style = "bold"
        elif line.startswith("+"):
            style = "$text-success on $success-muted"
        elif line.startswith("-"):
            style = "$text-error on $error-muted"
        elif line.startswith("@@"):
            style = "$text-accent"
        else:
            style = ""
        lines.append(Content.styled(line, style))
    return Content("\n").join(lines)


class UserMessage(Static):
    def __init__(self, text: str) -> None:
        super().__init__(Content(text), classes="user")


class Attachment(Static):
    """An image sent with the user's message (a chip under it), or one left out and why."""

    def __init__(self, line: str, shown: bool) -> None:
        mark = "▣ " if shown else "▢ "
        super().__init__(Content(mark + line), classes="attachment" + ("" if shown else " -out"))


class Note(Static):
    """A one-line notice from the agent or the app; ``-warning`` and ``-error`` colour it."""

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(Content(text), classes=f"note -{level}")


class FactsBlock(Static):
    """What the turn did, by beecode's account (not the model's): under the answer, the
    failures and the answer's contradictions in the warning colour."""

    def __init__(self, facts: TurnFacts) -> None:
        warned = bool(facts.failed or facts.doubts)
        lines = [Content.styled("beecode:", "bold"), *(Content(line) for line in facts.lines())]
        super().__init__(Content("\n").join(lines), classes=f"facts{' -warning' if warned else ''}")


class ToolBlock(Collapsible):
    """One tool call: a title line with its status, duration and result; the body expands."""

    def __init__(self, call: ToolCallStarted) -> None:
        self.call = call
        self.subject = fmt.tool_subject(call.arguments)
        # Textual types the title as str but takes Content (CollapsibleTitle.validate_label).
        heading = self._heading("…", "running", "")
        super().__init__(title=heading, collapsed=True, classes="tool")  # type: ignore[arg-type]

    def _heading(self, mark: str, status: str, detail: str) -> Content:
        parts: list[tuple[str, str] | str] = [(f"{mark} ", ""), (self.call.name, "bold")]
        if self.call.recovered:  # read from the reply's text: the user sees it was not native
            parts.append((" (recovered from text)", "dim italic"))
        if self.subject:
            parts.append(f"  {self.subject}")
        parts.append((f"  {status}", "dim"))
        if detail:
            parts.append((f" · {detail}", "dim"))
        return Content.assemble(*parts)

    async def finish(self, done: ToolCallFinished) -> None:
        exit_code = done.meta.get("exit_code")
        details = [fmt.duration(done.duration_s)]
        if isinstance(exit_code, int):
            details.append(f"exit {exit_code}")
        if done.meta.get("timed_out"):
            details.append("timed out")
        failed = done.is_error or (isinstance(exit_code, int) and exit_code != 0)
        mark, status = ("✗", "failed") if failed else ("✓", "done")
        heading = self._heading(mark, status, " · ".join(details))
        self.title = heading  # type: ignore[assignment]  # Textual: typed str, takes Content
        self.set_class(failed, "-failed")
        diff = done.meta.get("diff")
        if isinstance(diff, str) and diff.strip():
            body = Static(diff_content(diff), classes="diff")
            self.collapsed = False  # edits are what the user most needs to see
        else:
            shown, hidden = fmt.tail(done.output, OUTPUT_LINES)
            text = (f"… {hidden} earlier lines\n" if hidden else "") + (shown or "(no output)")
            body = Static(Content(text), classes="output")
            self.collapsed = not done.is_error
        await self.query_one(Collapsible.Contents).mount(body)


class CheckBlock(Collapsible):
    """One of the project's checks (lint, tests, the language server) run after a turn's
    changes: its command and outcome on one line; what the model was told expands."""

    def __init__(self, start: CheckStarted) -> None:
        self.start = start
        title = self._heading("…", "running")
        super().__init__(title=title, collapsed=True, classes="tool check")  # type: ignore[arg-type]

    def _heading(self, mark: str, status: str) -> Content:
        return Content.assemble(
            (f"{mark} ", ""), (f"{self.start.kind}", "bold"), f"  {self.start.command}",
            (f"  {status}", "dim"),
        )  # fmt: skip

    async def finish(self, done: CheckFinished) -> None:
        bad = done.status in ("failed", "timed_out")
        mark = {"passed": "✓", "not_run": "–"}.get(done.status, "✗")
        status = " · ".join(
            [done.status.replace("_", " "), done.summary, fmt.duration(done.duration_s)]
        )
        self.title = self._heading(mark, status)  # type: ignore[assignment]  # typed str
        self.set_class(bad, "-failed")
        if done.output:
            shown, hidden = fmt.tail(done.output, OUTPUT_LINES)
            text = (f"… {hidden} earlier lines\n" if hidden else "") + shown
            await self.query_one(Collapsible.Contents).mount(
                Static(Content(text), classes="output")
            )

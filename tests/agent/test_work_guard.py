"""Never make it worse (small models): a write replacing what the turn wrote with text copied
from a tool result or the prompt is refused; other rewrites go through."""

from __future__ import annotations

from pathlib import Path

from agent.model.reply import Call
from agent.small.guard import WorkGuard, copied_words
from tools.tool import ToolResult

PROMPT = "create notes.txt containing buy milk"


def write(content: str, path: str = "notes.txt") -> Call:
    return Call("c", "write", {"path": path, "content": content})


def written(ws: Path, guard: WorkGuard, content: str = "buy milk\n") -> None:
    (ws / "notes.txt").write_text(content)
    guard.observe(write(content), ToolResult("created notes.txt (1 line)"))


def test_work_is_not_overwritten_with_a_tool_results_text(ws: Path) -> None:
    guard = WorkGuard(ws, PROMPT)
    written(ws, guard)
    guard.observe(Call("r", "bash", {"command": "cat notes.txt"}), ToolResult("buy milk\n"))
    why = guard.refusal(write("created notes.txt (1 line)"))
    assert why is not None and why.startswith("not written: notes.txt already holds what this")
    assert "copied from a tool result" in why


def test_work_is_not_overwritten_with_the_prompt(ws: Path) -> None:
    guard = WorkGuard(ws, PROMPT)
    written(ws, guard)
    why = guard.refusal(write(PROMPT))
    assert why is not None and "copied from the prompt" in why


def test_other_files_and_asked_for_values_may_be_written(ws: Path) -> None:
    guard = WorkGuard(ws, "write buy milk to notes.txt, cat it, then change it to bye")
    written(ws, guard)
    assert guard.refusal(write("created notes.txt (1 line)", "a.txt")) is None
    assert guard.refusal(write("bye\n")) is None


def test_a_file_changed_since_is_not_the_turns_work(ws: Path) -> None:
    guard = WorkGuard(ws, PROMPT)
    written(ws, guard)
    (ws / "notes.txt").write_text("changed by a command\n")
    assert guard.refusal(write("created notes.txt (1 line)")) is None


def test_a_file_or_an_echo_made_of_the_turns_words_is_refused() -> None:
    """Told a command would replace all of server.ini, the 0.5B model echoed the refusal into it;
    told "server.ini: port 8081 please", it echoed the task."""
    said = ["this command replaces all 4 lines of server.ini. To add a line, use >>."]
    refusal = "Error: this command replaces all 4 lines of server.ini. To add a line"
    task = "server.ini: port 8081 please"
    echo = Call("c", "bash", {"command": f"echo '{refusal}' > server.ini"})
    assert "beecode's note" in str(copied_words(echo, said, task))
    assert "beecode's note" in str(copied_words(write(refusal), said, task))
    echoed = Call("c", "bash", {"command": f"echo '{task}' > server.ini"})
    assert "the task's words" in str(copied_words(echoed, said, task))
    long_task = "please create notes.txt containing buy milk and eggs"
    assert "the task's words" in str(copied_words(write(long_task), [], long_task))
    # The text the task gives, and other work: not refused.
    assert copied_words(write("buy milk and eggs"), said, long_task) is None
    assert copied_words(Call("c", "bash", {"command": "echo port = 8081"}), said, task) is None

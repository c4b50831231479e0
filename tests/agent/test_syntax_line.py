"""The line a Python syntax error names, given to a small model as the edit's old, held by the
next step's grammar."""

from __future__ import annotations

from pathlib import Path

from agent.model.scripted import text
from agent.small.syntax_line import syntax_line
from tests.agent.loop_kit import Face, arguments_schema, make_agent, offered, results, step

BROKEN = "def add(a, b)\n    return a + b\n\n\nprint(add(2, 3))\n"


def test_the_line_python_names(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(BROKEN)
    ran = (
        f'  File "{tmp_path}/broken.py", line 1\n    def add(a, b)\n                 ^\n'
        "SyntaxError: expected ':'\n[exit code 1]"
    )
    assert syntax_line(ran, tmp_path) == ("broken.py", "def add(a, b)", "expected ':'")
    edited = "edited broken.py: 1 replacement at line 5\nWarning: broken.py line 1: SyntaxError: x"
    assert syntax_line(edited, tmp_path) == ("broken.py", "def add(a, b)", "x")
    (tmp_path / "twice.py").write_text("  x = (\n  x = (\nx = (\n")
    assert syntax_line('File "twice.py", line 1\nSyntaxError: y', tmp_path) is None  # not unique
    assert syntax_line('File "/etc/passwd", line 1\nSyntaxError: y', tmp_path) is None
    assert syntax_line('File "gone.py", line 1\nSyntaxError: y', tmp_path) is None


async def test_a_syntax_error_gives_the_line_to_fix(ws: Path) -> None:
    """The 0.5B model ran broken.py, then edited the print call it did not need to fix."""
    (ws / "broken.py").write_text(BROKEN)
    replies = [
        step("bash", command="python3 broken.py"),
        step("edit", path="broken.py", old="def add(a, b)", new="def add(a, b):"),
        step("bash", command="python3 broken.py"),
        '"done"',
        step("answer", text="Fixed: broken.py prints 5."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("Fix the syntax error in broken.py", Face())

    assert results(agent)[0].endswith(
        "[exit code 1]\n[broken.py: expected ':', in the line 'def add(a, b)'. Send the edit of "
        "that line, fixed.]"
    )
    assert offered(model.requests[1]) == {"edit"}
    held = arguments_schema(model.requests[1], "edit")
    assert held["path"]["const"] == "broken.py" and held["old"]["const"] == "def add(a, b)"
    assert "const" not in arguments_schema(model.requests[2], "edit")["old"]  # for one step
    assert (ws / "broken.py").read_text() == BROKEN.replace("b)\n", "b):\n", 1)
    assert finished.stop_reason == "done" and finished.facts.doubts == []

"""The line a Python syntax error names, given to a small model as the edit's old, held by the
next step's grammar."""

from __future__ import annotations

from pathlib import Path

from agent.model.reply import Call
from agent.model.scripted import text
from agent.small.syntax_line import breaking_edit, syntax_line
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


async def test_an_edit_that_would_break_a_python_file_is_refused(ws: Path) -> None:
    """Told to make a failing test pass, the 0.5B model made `def print(double(x)):`."""
    calc = "def double(x):\n    return x + 2\n"
    (ws / "calc.py").write_text(calc)
    replies = [
        step("read", path="calc.py"),
        step("edit", path="calc.py", old="double(x)", new="print(double(x))"),
        step("edit", path="calc.py", old="x + 2", new="x * 2"),
        step("bash", command="python3 calc.py"),
        '"done"',
        step("answer", text="double returns x * 2 now."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("make double in calc.py double its argument", Face())

    assert results(agent)[1].startswith(
        "Error: this edit would leave calc.py with a SyntaxError (line 1: "
    )
    assert (ws / "calc.py").read_text() == calc.replace("x + 2", "x * 2")


def test_an_edit_that_would_define_a_name_twice_is_refused(tmp_path: Path) -> None:
    """Sent again and again, "add multiply" grew a second `def add` returning a * b."""
    kept = "def add(a, b):\n    return a + b\n\n\ndef multiply(a, b):\n    return a * b\n"
    (tmp_path / "math_utils.py").write_text(kept)
    again = kept + "\n\ndef add(a, b):\n    return a * b\n"
    twice = Call("1", "edit", {"path": "math_utils.py", "old": kept, "new": again})
    assert breaking_edit(twice, tmp_path) == (
        "this edit would define add twice in math_utils.py; not made. Define each once"
    )
    other = Call("2", "edit", {"path": "math_utils.py", "old": "a * b", "new": "b * a"})
    assert breaking_edit(other, tmp_path) is None


def test_a_write_that_would_break_a_file_that_parses_is_refused(tmp_path: Path) -> None:
    """A write keeping `port = 8080` under a new `port = 9090`, and add-fn's second subtract."""
    (tmp_path / "config.ini").write_text("[server]\nhost = localhost\nport = 8080\n")
    twice = "[server]\nhost = localhost\nport = 8080\nport = 9090\n"
    write = Call("1", "write", {"path": "config.ini", "content": twice})
    assert breaking_edit(write, tmp_path) == (
        "this write would leave config.ini with an error (line 4: option 'port' in section "
        "'server' is set twice); not made. Keep it valid"
    )
    kept = Call("2", "write", {"path": "config.ini", "content": twice.replace("port = 8080\n", "")})
    assert breaking_edit(kept, tmp_path) is None
    code = "def subtract(a, b):\n    return a - b\n"
    (tmp_path / "m.py").write_text(code)
    again = Call("3", "write", {"path": "m.py", "content": code + "\n\n" + code})
    assert breaking_edit(again, tmp_path) == (
        "this write would define subtract twice in m.py; not made. Define each once"
    )
    # A file broken already is the model's to fix, however it writes it.
    (tmp_path / "data.json").write_text("{")
    assert (
        breaking_edit(Call("4", "write", {"path": "data.json", "content": "[,"}), tmp_path) is None
    )

"""Calls made of the turn's words rather than its work, in constrained mode: content copied from
beecode's notes, the task echoed, a line replaced where the task says append, the task's text in
other letter case; and the path the next step must write, held by its grammar."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.loop.reads import Reads
from agent.model.reply import Call
from agent.model.scripted import Request, text
from agent.small.habits import SmallLedger
from agent.small.task_words import asked_text, is_question, words_refusal
from tests.agent.loop_kit import Face, arguments_schema, make_agent, offered, results, step
from tools.registry import default_registry

DONE = '"done"'


def write_path(request: Request) -> Any:
    """The schema a step's write call holds its path to."""
    assert request.reply_format.schema is not None
    for branch in request.reply_format.schema["anyOf"]:
        if branch["properties"]["name"]["const"] == "write":
            return branch["properties"]["arguments"]["properties"]["path"]
    raise AssertionError("write is not offered")


def test_the_text_a_task_names_for_a_file() -> None:
    assert asked_text("create a.txt containing 1, then copy it to b.txt", "a.txt") == "1"
    assert asked_text("make notes.txt with the text: buy milk", "notes.txt") == "buy milk"
    assert asked_text("a folder docs with a file index.md containing # Docs", "docs/index.md") == (
        "# Docs"
    )
    assert asked_text("write 'version 2' into a new file VERSION", "VERSION") == "version 2"
    assert asked_text("put out/log.txt in it saying empty", "out/log.txt") == "empty"
    assert asked_text("copy a.txt to b.txt", "b.txt") is None


async def test_content_copied_from_a_note_is_refused_and_the_path_held(ws: Path) -> None:
    """Told that write creates a.txt, the 0.5B model wrote a.txt holding "write creates it."; the
    note and the refusal now give the step the task names."""
    replies = [
        step("bash", command="cp a.txt b.txt"),
        # Refused: beecode's note, and the last result's status line after it.
        step("write", path="a.txt", content="a.txt does not exist yet; \n[exit code 1]"),
        step("write", path="a.txt", content="1\n"),
        # Not the choice of done: the copy that failed for lack of a.txt is to run again.
        step("bash", command="cp a.txt b.txt"),
        DONE,
        step("answer", text="a.txt and b.txt hold 1."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("create a.txt containing 1, then copy it to b.txt", Face())

    assert offered(model.requests[1]) == {"write"}
    assert write_path(model.requests[1]) == {"type": "string", "const": "a.txt"}
    call = '{"name": "write", "arguments": {"path": "a.txt", "content": "1\\n"}}'
    assert results(agent)[0].endswith(f"[a.txt does not exist yet; the task asks for: {call}.]")
    assert results(agent)[1] == (
        "Error: this content is beecode's note to you, not text for the file; the task asks "
        f"for: {call}. Fix the call and try again."
    )
    assert "const" not in write_path(model.requests[2])  # held for one step only
    again = '{"name": "bash", "arguments": {"command": "cp a.txt b.txt"}}'
    assert results(agent)[2] == (
        f"created a.txt (1 line)\n[a.txt exists now: run again the command that needed it: {again}]"
    )
    assert "bash" in offered(model.requests[3])
    assert not offered(model.requests[3]) & {"write", "edit", "answer"}
    assert (ws / "a.txt").read_text() == (ws / "b.txt").read_text() == "1\n"
    assert finished.stop_reason == "done" and finished.facts.failed == []


async def test_the_task_echoed_is_refused(ws: Path) -> None:
    task = "append fourth to notes.txt and then tell me how many lines it has"
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    replies = [
        step("bash", command=f"echo '{task}'"),
        step("bash", command='echo "this repeats the task\'s words: run in bash"'),
        step("bash", command="echo fourth >> notes.txt"),
        step("bash", command="wc -l notes.txt"),  # the task's question, after its change
        DONE,
        step("answer", text="notes.txt has 4 lines."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn(task, Face())

    assert results(agent)[0].startswith(
        "Error: this repeats the task's words: run in bash: echo fourth >> notes.txt instead"
    )
    assert results(agent)[1].startswith("Error: this echoes beecode's note to you")
    assert (ws / "notes.txt").read_text() == "first\nsecond\nthird\nfourth\n"
    assert finished.final_text == "notes.txt has 4 lines." and finished.facts.doubts == []


async def test_a_line_replaced_where_the_task_says_append_is_refused(ws: Path) -> None:
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    replace = step("edit", path="notes.txt", old="third", new="fourth")
    replies = [
        step("read", path="notes.txt"),
        replace,
        replace,  # refused again: asked once, the 0.5B model sent the same edit again
        step("bash", command="echo fourth >> notes.txt"),
        DONE,
        step("answer", text="ok"),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("append the line fourth to notes.txt", Face())

    assert results(agent)[1] == (
        "Error: this edit replaces 'third' in notes.txt. To append 'fourth' as a new last line, "
        "run in bash: echo fourth >> notes.txt. Fix the call and try again."
    )
    assert results(agent)[2].startswith(results(agent)[1])
    assert "edit" not in offered(model.requests[3])  # the same failure twice: edit is out
    assert (ws / "notes.txt").read_text() == "first\nsecond\nthird\nfourth\n"
    assert finished.stop_reason == "done" and finished.facts.failed == []


async def test_the_tasks_text_in_other_letter_case_is_refused(ws: Path) -> None:
    replies = [
        step("write", path="notes.txt", content="Buy milk\n"),
        step("write", path="notes.txt", content="Buy milk\n"),  # refused again
        step("write", path="notes.txt", content="buy milk\n"),
        DONE,
        step("answer", text="Wrote notes.txt."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("make notes.txt with the text: buy milk", Face())

    assert results(agent)[0].startswith(
        "Error: the task asks for notes.txt to hold 'buy milk', and this content is 'Buy milk'. "
        'Write it as the task says: {"name": "write", "arguments": {"path": "notes.txt", '
        '"content": "buy milk\\n"}}'
    )
    assert results(agent)[1].startswith(results(agent)[0])
    assert (ws / "notes.txt").read_text() == "buy milk\n"


async def test_a_folder_the_task_names_holds_the_next_write_to_its_file(ws: Path) -> None:
    replies = [
        step("write", path="docs", content="# Docs"),  # refused: a folder by the task's words
        step("write", path="docs/index.md", content="# Docs\n"),
        DONE,
        step("answer", text="Made docs/index.md."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("create a folder docs with a file index.md containing # Docs", Face())

    assert write_path(model.requests[1]) == {"type": "string", "const": "docs/index.md"}
    assert (ws / "docs" / "index.md").read_text() == "# Docs\n"


async def test_a_question_is_offered_no_change(ws: Path) -> None:
    """Asked for the third line of notes.txt, the 0.5B model replaced its first line."""
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    replies = [step("read", path="notes.txt"), step("answer", text="The third line is third.")]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("what is the third line of notes.txt?", Face())

    assert not offered(model.requests[0]) & {"write", "edit"}
    assert {"read", "bash", "answer"} <= offered(model.requests[0])
    assert finished.final_text == "The third line is third."
    assert is_question("how many words are in notes.txt?")
    assert not is_question("can you fix calc.py?") and not is_question("fix calc.py")


async def test_a_fix_of_a_line_beecode_quoted_is_not_its_words(ws: Path) -> None:
    """The note on a syntax error quotes the broken line: the fixed line is a substring of it,
    and is the model's own work, not a copy of beecode's words."""
    (ws / "broken.py").write_text("def add(a, b)::\n    return a + b\n")
    fix = step("edit", path="broken.py", old="def add(a, b)::", new="def add(a, b):")
    run = step("bash", command="python3 broken.py")
    replies = [run, fix, run, DONE, step("answer", text="ok")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("Fix the syntax error in broken.py", Face())

    assert "in the line 'def add(a, b)::'" in results(agent)[0]
    assert results(agent)[1].startswith("edited broken.py")
    assert (ws / "broken.py").read_text() == "def add(a, b):\n    return a + b\n"


async def test_another_line_echoed_onto_the_file_is_refused(ws: Path) -> None:
    """Told to append the line fourth, the 0.5B model appended the file's name."""
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    right = "echo fourth >> notes.txt"
    replies = [
        step("bash", command="echo 'notes.txt' >> notes.txt"),
        step("bash", command=right),
        DONE,
        step("answer", text="Appended fourth."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("append the line fourth to notes.txt", Face())

    assert results(agent)[0] == (
        "Error: this appends 'notes.txt' to notes.txt, and the task appends 'fourth': run in "
        f"bash: {right}. Fix the call and try again."
    )
    # The command given is held as the next step (the 0.5B model copied the words around it).
    assert offered(model.requests[1]) == {"bash"}
    assert arguments_schema(model.requests[1], "bash")["command"]["const"] == right
    assert (ws / "notes.txt").read_text() == "first\nsecond\nthird\nfourth\n"


async def test_another_line_echoed_in_a_command_list_is_refused(ws: Path) -> None:
    """Told to append fourth and count the lines, the 0.5B model ran the echo and wc at once."""
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    replies = [
        step("bash", command="echo 'notes.txt' >> notes.txt && wc -l notes.txt"),
        step("bash", command="echo fourth >> notes.txt && wc -l notes.txt"),
        DONE,
        step("answer", text="It has 4 lines."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn(
        "append fourth to notes.txt and then tell me how many lines it has", Face()
    )
    assert results(agent)[0].startswith("Error: this appends 'notes.txt' to notes.txt")
    assert (ws / "notes.txt").read_text() == "first\nsecond\nthird\nfourth\n"


async def test_an_edit_taking_text_out_where_the_task_only_adds_is_refused(ws: Path) -> None:
    """Told to add multiply to math_utils.py, the 0.5B model replaced add with it."""
    (ws / "math_utils.py").write_text("def add(a, b):\n    return a + b\n")
    add, multiply = "def add(a, b):\n    return a + b\n", "def multiply(a, b):\n    return a * b\n"
    kept = add.rstrip("\n") + "\n\n" + multiply.strip("\n") + "\n"
    replies = [
        step("read", path="math_utils.py"),
        step("edit", path="math_utils.py", old=add, new=multiply),
        step("edit", path="math_utils.py", old=add, new=kept),
        step("bash", command="python3 math_utils.py"),
        DONE,
        step("answer", text="Added multiply."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn(
        "Add a function multiply(a, b) that returns a * b to math_utils.py", Face()
    )

    both = json.dumps(
        {"name": "edit", "arguments": {"path": "math_utils.py", "old": add, "new": kept}}
    )
    assert results(agent)[1] == (
        "Error: this edit takes 'def add(a, b):' out of math_utils.py, and the task only adds. "
        f"To keep it and add yours, send: {both}. Fix the call and try again."
    )
    assert (ws / "math_utils.py").read_text() == kept


async def test_the_text_a_task_names_with_more_after_it_is_asked_about_once(ws: Path) -> None:
    """Told to write index.md containing # Docs, the 0.5B model added a paragraph."""
    padded = step("write", path="docs/index.md", content="# Docs\n\nThis is a folder.\n")
    replies = [padded, padded, DONE, step("answer", text="Wrote docs/index.md.")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("make a folder docs with a file index.md containing # Docs", Face())

    just = '{"name": "write", "arguments": {"path": "docs/index.md", "content": "# Docs\\n"}}'
    assert results(agent)[0] == (
        "Error: the task asks for docs/index.md to hold '# Docs', and this content holds more. "
        f"Write just it: {just}. To keep yours, send the same write again"
    )
    assert (ws / "docs" / "index.md").read_text() == "# Docs\n\nThis is a folder.\n"  # sent twice


def test_the_guides_example_edit_is_refused_with_the_files_text(ws: Path) -> None:
    """Told to fix calc.py, the 0.5B model sent the guide's edit (then of calc.py) as it was."""
    (ws / "shop.py").write_text("def double(x):\n    return x + 2\n")
    ledger = SmallLedger(Reads(default_registry(), ws))
    ledger.task = "fix shop.py"
    example = Call("1", "edit", {"path": "shop.py", "old": "print(total", "new": "print(total)"})
    assert words_refusal(example, ledger, []) == (
        "old 'print(total' is the reply format's example, not text of shop.py, which holds "
        "'def double(x):\\n    return x + 2\\n': copy old from it"
    )
    (ws / "shop.py").write_text("print(total\n")
    assert words_refusal(example, ledger, []) is None  # the file's own text: an edit like any

"""A small model's report read against the facts (``agent.small.checks``), in no language's
words."""

from __future__ import annotations

from pathlib import Path

from agent.facts import TurnFacts
from agent.small.checks import report_doubts


def test_a_file_named_that_is_nowhere(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "broken.py").write_text("x = 1\n")
    facts = TurnFacts(changed=["src/broken.py"])
    found = report_doubts("The error in shop.py is fixed.", facts, [], [], ws, "fix broken.py")
    assert found == ["the report names shop.py; no such file is in the workspace"]
    # By its last part, in the task, in a result, or deleted by the turn: not doubted.
    for answer in ("broken.py works now.", "Fixed main.py."):
        assert report_doubts(answer, facts, ["main.py"], [], ws, "fix broken.py") == []
    gone = TurnFacts(deleted=["old.py"])
    assert report_doubts("Removed old.py.", gone, [], [], ws, "x") == []


def test_beecodes_words_and_the_tasks_given_back(ws: Path) -> None:
    told = ["\n[No file has changed yet, and the task asks for a change.]"]
    copied = "No file has changed yet, and the task asks for a change."
    assert report_doubts(copied, TurnFacts(), [], told, ws, "x") == [
        "the report repeats beecode's message to the model: No file has changed yet, and"
    ]
    task = "call the function foo bar instead in utils.py"
    echoed = report_doubts("Call the function foo bar instead.", TurnFacts(), [], [], ws, task)
    assert echoed == ["the report repeats the task's words; this turn changed no file"]

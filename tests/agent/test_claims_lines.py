"""Claims about a file's lines and runs: a line said removed that the turn's change did not
remove (read against the turn's checkpoint), a file said not to run after its run passed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.facts import CommandRun, TurnFacts
from agent.small.claims import doubts

NOTES = "first\nsecond\nthird\n"


@pytest.mark.parametrize(
    ("answer", "doubted"),
    [
        ("The notes.txt file has been updated with the second line removed.", True),
        ("I deleted line 3.", True),
        ("The notes.txt file has been updated to remove the second line.", True),
        ("Removed the first line of notes.txt.", False),
        ("The first line was deleted.", False),
        ("The second line was not removed.", False),  # said not to have happened
    ],
)
def test_a_line_said_removed_is_read_against_the_file_before_the_turn(
    tmp_path: Path, answer: str, doubted: bool
) -> None:
    """After `sed -i '1d'`, the 0.5B model said the second line was removed."""
    (tmp_path / "notes.txt").write_text("second\nthird\n")
    facts = TurnFacts(changed=["notes.txt"])
    found = doubts(answer, facts, [], workspace=tmp_path, earlier=lambda _: NOTES)
    said = [d for d in found if "was removed" in d]
    assert said == (
        [
            f"the answer says line {2 if 'second' in answer else 3} of notes.txt was removed; "
            "this turn removed line 1 of it"
        ]
        if doubted
        else []
    )


def test_a_removal_is_not_checked_without_the_file_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("second\nthird\n")
    facts = TurnFacts(changed=["notes.txt"])
    answer = "The second line was removed."
    assert doubts(answer, facts, [], workspace=tmp_path, earlier=lambda _: None) == []
    assert doubts(answer, facts, [], workspace=tmp_path, earlier=lambda _: NOTES) == [
        "the answer says line 2 of notes.txt was removed; this turn removed line 1 of it"
    ]


@pytest.mark.parametrize(
    ("answer", "doubted"),
    [
        ("The file 'broken.py' has 5 lines of code that do not run; repair it.", True),
        ("broken.py is still broken.", True),
        ("broken.py did not run at first; it prints 5 now.", False),  # said of before
        ("broken.py does not run tests; it prints 5.", False),
    ],
)
def test_a_file_said_not_to_run_after_its_run_passed_is_doubted(answer: str, doubted: bool) -> None:
    facts = TurnFacts(
        changed=["broken.py"],
        commands=[
            CommandRun("python3 broken.py", 1, "SyntaxError"),
            CommandRun("python3 broken.py", 0, "5"),
        ],
    )
    said = [d for d in doubts(answer, facts, ["5"]) if "does not run" in d]
    expected = "the answer says broken.py does not run; `python3 broken.py` ran it to exit 0"
    assert said == ([expected] if doubted else [])


def test_a_file_whose_last_run_failed_may_be_said_not_to_run() -> None:
    facts = TurnFacts(commands=[CommandRun("python3 broken.py", 1, "SyntaxError")])
    assert doubts("broken.py does not run.", facts, ["SyntaxError"]) == []


def test_a_line_said_added_is_read_in_the_file(tmp_path: Path) -> None:
    """The append was refused (it held the task's words); the answer said it was made."""
    (tmp_path / "notes.txt").write_text(NOTES + "fourth\n")
    said = "notes.txt has been updated with the line 'append fourth to notes.txt'."
    assert doubts(said, TurnFacts(changed=["notes.txt"]), [], workspace=tmp_path) == [
        "the answer says notes.txt holds 'append fourth to notes.txt'; it does not"
    ]
    kept = "notes.txt has been updated with the line 'fourth'."
    assert doubts(kept, TurnFacts(changed=["notes.txt"]), [], workspace=tmp_path) == []


def test_a_file_named_that_is_nowhere(tmp_path: Path) -> None:
    """fix-syntax-2: "The error in `shop.py` is ...", the guide's example, of broken.py."""
    (tmp_path / "broken.py").write_text("def add(a, b):\n    return a + b\n")
    facts = TurnFacts(changed=["broken.py"])
    said = "The error in `shop.py` is due to the missing colon."
    assert doubts(said, facts, [], [], tmp_path) == [
        "the answer names shop.py; no such file is in the workspace"
    ]
    assert doubts("The error in broken.py was fixed.", facts, [], [], tmp_path) == []
    # Named by the task or a result, deleted by the turn, or suggested: no doubt.
    assert doubts(said, facts, [], [], tmp_path, task="why does shop.py fail?") == []
    assert doubts(said, facts, ["shop.py: not found"], [], tmp_path) == []
    gone = TurnFacts(deleted=["shop.py"])
    assert doubts("The error in shop.py is gone.", gone, [], [], tmp_path) == []
    assert doubts("You could add tests/test_add.py next.", facts, [], [], tmp_path) == []
    assert doubts("There is no requirements.txt here.", facts, [], [], tmp_path) == []
    assert doubts("Node.js and os.path are not files.", facts, [], [], tmp_path) == []


def test_a_file_named_by_its_last_part_is_somewhere(tmp_path: Path) -> None:
    """A name's last part (main.py of src/main.py) is looked for; hidden folders are not."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print(1)\n")
    facts = TurnFacts(changed=["src/main.py"])
    assert doubts("I updated main.py.", facts, [], [], tmp_path) == []
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "kept.py").write_text("")
    assert doubts("The bug is in kept.py.", facts, [], [], tmp_path) == [
        "the answer names kept.py; no such file is in the workspace"
    ]

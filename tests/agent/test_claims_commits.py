"""Answers about commits checked against the turn's facts: a commit changes no file, but a
sentence that also says a file was made is checked; a task that asks for a commit is not done
without one, nor one that asks for a change of a file it names without a changed file."""

from __future__ import annotations

from agent.facts import CommandRun, TurnFacts
from agent.small.claims import doubts


def test_a_committed_file_named_in_the_commit_sentence() -> None:
    commit = [CommandRun("git add -A && git commit -m 'first'", 0, "[main 1a2b3c4] first")]
    said = "Added README.md and committed it with the message 'first'."
    assert doubts(said, TurnFacts(commands=commit), []) == []
    assert doubts(said, TurnFacts(), []) == [
        "the answer names README.md, which this turn did not write"
    ]
    # README.md was there, uncommitted: the 0.5B model said it made it.
    made = "Created README.md and added an initial commit."
    assert doubts(made, TurnFacts(commands=commit), []) == [
        "the answer names README.md, which this turn did not write"
    ]


def test_a_task_said_done_that_asks_for_a_commit_none_ran() -> None:
    """multi-2: the test passed, no commit ran, and the 0.5B model said it was all done."""
    task = "fix calc.py so test_calc.py passes, then commit with message 'fix'"
    said = "The task was completed successfully. The test passed."
    ran = [CommandRun("python3 test_calc.py", 0, "ok")]
    facts = TurnFacts(changed=["calc.py"], commands=ran)
    assert doubts(said, facts, ["ok"], task=task) == [
        "the answer says the task is done; it asks for a commit, and none ran"
    ]
    commit = [*ran, CommandRun("git commit -am fix", 0, "[main 1a2b3c4] fix")]
    done = TurnFacts(changed=["calc.py"], commands=commit)
    assert doubts(said, done, ["ok"], task=task) == []
    assert doubts(said, facts, ["ok"], task="fix calc.py; do not commit") == []


def test_a_task_said_done_that_asks_for_a_change_none_made() -> None:
    """The 0.5B model's `sed` matched no line, or it ran the file it was to edit, and it said
    the task was done: no file changed."""
    said = "The task was completed successfully."
    sed = [CommandRun("sed -i '/^.*notes.txt$/d' notes.txt", 0, "")]
    task = "remove the second line from notes.txt"
    assert doubts(said, TurnFacts(commands=sed), [""], task=task) == [
        "the answer says the task is done; it asks for a change, and no file changed"
    ]
    ran = [CommandRun("python3 utils.py foo 3", 0, "6")]
    rename = "rename the function foo to bar in utils.py"
    assert doubts("The task has been completed.", TurnFacts(commands=ran), ["6"], task=rename) == [
        "the answer says the task is done; it asks for a change, and no file changed"
    ]
    assert doubts(said, TurnFacts(changed=["notes.txt"], commands=sed), [""], task=task) == []
    assert doubts(said, TurnFacts(commands=ran), ["6"], task="run utils.py") == []  # no change
    assert doubts(said, TurnFacts(), [], task="create a folder named out") == []  # no file named
    assert doubts("The second line is gone.", TurnFacts(commands=sed), [""], task=task) == []

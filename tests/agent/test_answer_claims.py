"""An answer that contradicts the turn's facts is said to, beside it: a file named as written that
was not, a run said to print what no result holds, success claimed after an unrecovered failure."""

from __future__ import annotations

from pathlib import Path

from agent.facts import CommandRun, TurnFacts
from agent.model.scripted import text
from agent.small.claims import doubts
from tests.agent.loop_kit import Face, make_agent
from tests.agent.test_turn_facts import failed_edit

RAN = [CommandRun("python3 fib.py", 0, "")]


def test_a_file_named_as_written_that_was_not() -> None:
    facts = TurnFacts(created=["fib.py"])
    assert doubts("Created reversed.txt; it still runs.", facts, []) == [
        "the answer names reversed.txt, which this turn did not write"
    ]
    assert doubts("Created fib.py.", facts, []) == []
    assert doubts("src/fib.py was written.", TurnFacts(changed=["src/fib.py"]), []) == []
    # Named without a claim of change: a question about a file is answered, not doubted.
    assert doubts("notes.txt holds three lines.", TurnFacts(), []) == []
    # Code described, not a change claimed: "adds" is what the function does.
    assert doubts("math_utils.py has a function definition that adds.", TurnFacts(), []) == []
    assert doubts("The port set in config.ini is 8080.", TurnFacts(), []) == []
    assert doubts("I added subtract to math_utils.py.", TurnFacts(), []) == [
        "the answer names math_utils.py, which this turn did not write"
    ]


def test_a_run_said_to_print_what_it_did_not() -> None:
    facts = TurnFacts(created=["fib.py"], commands=RAN)
    assert doubts("Created fib.py; running it printed 5.", facts, ["created fib.py (1 line)"]) == [
        "the answer says something printed 5; no result this turn holds it"
    ]
    assert doubts("Running it printed 5.", facts, ["5\n"]) == []
    assert doubts("It printed 5.", TurnFacts(), []) == [
        "the answer says something printed 5; this turn ran no command"
    ]
    assert doubts("It printed nothing.", facts, [""]) == []
    assert doubts("The output was printed.", facts, [""]) == []
    assert doubts("The output of the command `echo $((3+4))` is `7`.", facts, ["7\n"]) == []


def test_success_claimed_after_an_unrecovered_failure() -> None:
    facts = TurnFacts(failed=["edit config.py: Error: old text not found"])
    assert doubts("Config.py has been updated.", facts, []) == [
        "the answer names Config.py, which this turn did not write",
        "the answer does not say that a step failed: edit config.py: Error: old text not found",
    ]
    assert doubts("The edit failed: the old text was not in config.py.", facts, []) == []


async def test_a_native_answer_is_not_read_for_english_claims(ws: Path) -> None:
    # The native path reads no English: the facts say what happened (the failed edit, the
    # turn failed), beside the answer, and no doubt is made of its words.
    claim = text("Config.py has been updated; running it printed True.")
    agent, _ = make_agent(ws, [*failed_edit(ws), claim])
    finished = await agent.run_turn("set debug to True in config.py", Face())

    assert finished.stop_reason == "failed"
    assert finished.final_text == "Config.py has been updated; running it printed True."
    assert finished.facts.failed and finished.facts.doubts == []


def test_a_change_claimed_in_a_turn_that_changed_no_file() -> None:
    assert doubts("It is now true.", TurnFacts(), []) == [
        "the answer claims a change (It is now true.); no file changed"
    ]
    assert doubts("Debugging is now enabled in settings.toml.", TurnFacts(), []) == [
        "the answer names settings.toml, which this turn did not write"
    ]
    # What a read or a command showed is no claim of a change.
    assert doubts("Debugging is enabled in settings.toml.", TurnFacts(), []) == []
    assert doubts("The server is now running on port 8000.", TurnFacts(commands=RAN), []) == []
    assert doubts("It is now true.", TurnFacts(changed=["settings.toml"]), []) == []
    # A commit changes no file of the workspace, and a state read is no claim of a change.
    assert doubts("All changes were committed.", TurnFacts(), []) == []
    assert doubts("The third line is third.", TurnFacts(), []) == []


def test_beecode_words_to_the_model_repeated_as_the_answer() -> None:
    hint = (
        "old not found in calc.py, but new is there already: the change is made, or old and new"
        " are swapped (old is the text in the file now, new what replaces it)"
    )
    said = "The change is made, or old and new are swapped (old is the text in the file now)"
    assert doubts(said, TurnFacts(), [hint], [hint]) == [
        "the answer repeats beecode's message to the model: The change is made, or old"
    ]
    # Quoted to explain a failure, beecode's words are an account.
    explained = "The edit failed: old not found in calc.py, but new is there already."
    assert doubts(explained, TurnFacts(), [hint], [hint]) == []
    # A program's own words may be quoted: only beecode's errors and hints are its words.
    trace = "NameError: name 'total' is not defined in line 3 of calc.py"
    assert doubts(f"Running it gave {trace}", TurnFacts(commands=RAN), [trace], []) == []
    # beecode's hint whole is a copy, though it speaks of a failure.
    note = "[You have seen this already. A step still fails: change the file to fix it.]"
    assert doubts(
        "A step still fails: change the file to fix it.", TurnFacts(), [note], [note]
    ) == ["the answer repeats beecode's message to the model: A step still fails: change the"]


def test_a_sentence_opening_with_set_claims_a_change() -> None:
    # After a sed that matched nothing: the file is unchanged.
    assert doubts("Set port to 9090 in config.ini.", TurnFacts(), []) == [
        "the answer names config.ini, which this turn did not write"
    ]
    assert doubts("Set port to 9090 in config.ini.", TurnFacts(changed=["config.ini"]), []) == []
    assert doubts("Set up a venv to run main.py.", TurnFacts(), []) == []


def test_a_value_or_line_count_the_changed_file_does_not_hold(tmp_path: Path) -> None:
    (tmp_path / "settings.toml").write_text("debug = false\n")
    (tmp_path / "notes.txt").write_text("first\nsecond\nfourth\n")
    toml, notes = TurnFacts(changed=["settings.toml"]), TurnFacts(changed=["notes.txt"])
    assert doubts("It is now true.", toml, [], [], tmp_path) == [
        "the answer says true; settings.toml does not hold it"
    ]
    assert doubts("Debug is now false.", toml, [], [], tmp_path) == []
    assert doubts("notes.txt now contains four lines.", notes, [], [], tmp_path) == [
        "the answer says notes.txt has four lines; it has 3"
    ]
    assert doubts("notes.txt now has 3 lines.", notes, [], [], tmp_path) == []
    # A write's result copied after a later append: "hello.sh (1 line)" of a longer file.
    assert doubts("notes.txt (1 line)", notes, [], [], tmp_path) == [
        "the answer says notes.txt has 1 lines; it has 3"
    ]
    # Named, the file is read though the turn did not change it.
    assert doubts("notes.txt now has 4 lines.", TurnFacts(), [], [], tmp_path) == [
        "the answer says notes.txt has 4 lines; it has 3"
    ]
    (tmp_path / "data.txt").write_text("a\nb\nc")  # wc -l says 2: either count stands
    assert doubts("data.txt has 2 lines.", TurnFacts(), [], [], tmp_path) == []
    # A file the turn did not change is not read for what the answer says of it.
    assert doubts("It is now true.", TurnFacts(), [], [], tmp_path) == [
        "the answer claims a change (It is now true.); no file changed"
    ]
    # "to" a path or a name is no value; nor is a failure's account a claim.
    both = TurnFacts(changed=["settings.toml", "notes.txt"])
    assert doubts("Renamed notes.txt to todo.txt.", notes, [], [], tmp_path) == [
        "the answer names todo.txt, which this turn did not write"
    ]
    assert doubts("Could not set debug to true.", both, [], [], tmp_path) == []


def test_tests_said_to_pass_that_no_command_ran() -> None:
    calc = TurnFacts(changed=["calc.py"], commands=[CommandRun("python3 calc.py", 0, "")])
    assert doubts("The test_calc.py file passed the test.", calc, [""]) == [
        "the answer says test_calc.py passed; no command this turn ran it to exit 0"
    ]
    assert doubts("All tests pass now.", calc, [""]) == [
        "the answer says the tests passed; no command this turn ran it to exit 0"
    ]
    tested = TurnFacts(commands=[CommandRun("python3 test_calc.py", 0, "ok")])
    assert doubts("test_calc.py passes.", tested, ["ok"]) == []
    assert doubts("The tests pass.", tested, ["ok"]) == []
    failing = TurnFacts(commands=[CommandRun("python3 test_calc.py", 1, "AssertionError")])
    assert doubts("test_calc.py passes.", failing, [""]) == [
        "the answer says test_calc.py passed; no command this turn ran it to exit 0"
    ]
    assert doubts("test_calc.py still does not pass.", failing, [""]) == []


def test_a_setting_said_set_or_a_text_said_held_that_the_file_does_not_hold(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.ini").write_text("port = 8080\n")
    (tmp_path / "settings.toml").write_text("debug = true\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "log.txt").write_text("")
    (tmp_path / "notes.txt").write_text("first\nfourth\n")
    # After a sed that matched nothing: config.ini is unchanged.
    assert doubts(
        "The port has been set to 9090 in config.ini.", TurnFacts(), [], [], tmp_path
    ) == [
        "the answer names config.ini, which this turn did not write",
        "the answer says 9090; config.ini does not hold it",
    ]
    toml = TurnFacts(changed=["settings.toml"])
    assert doubts("Debug is now enabled in settings.toml.", toml, [], [], tmp_path) == []
    log = TurnFacts(created=["out/log.txt"])
    assert doubts("Created out/log.txt saying empty.", log, [], [], tmp_path) == [
        "the answer says out/log.txt holds 'empty'; it does not"
    ]
    (tmp_path / "greeting.txt").write_text("Hello, world\n")
    hello = TurnFacts(created=["greeting.txt"])
    said = "Created greeting.txt containing exactly: Hello, world"
    assert doubts(said, hello, [], [], tmp_path) == []  # not 'exactly'
    notes = TurnFacts(changed=["notes.txt"])
    assert doubts("notes.txt now contains fourth at the end.", notes, [], [], tmp_path) == []
    assert doubts("notes.txt contains 'first'.", notes, [], [], tmp_path) == []
    (tmp_path / "calc.py").write_text("def double(x):\n    return x + 5\n")
    calc = TurnFacts(changed=["calc.py"])
    said = (
        "The `double` function in `calc.py` has been updated to return `x + 3` instead of `x + 2`."
    )
    assert doubts(said, calc, [], [], tmp_path) == [
        "the answer says 'x + 3'; calc.py does not hold it"
    ]
    true = "The `double` function in calc.py has been updated to return `x + 5`."
    assert doubts(true, calc, [], [], tmp_path) == []
    # The text after "the text" is the claim, not the article (a true answer was left out).
    line = "The third line of notes.txt contains the text 'fourth'."
    assert doubts(line, TurnFacts(), [], [], tmp_path) == []
    assert doubts("notes.txt contains the word second.", notes, [], [], tmp_path) == [
        "the answer says notes.txt holds 'second'; it does not"
    ]


def test_a_rename_told_backwards() -> None:
    facts = TurnFacts(created=["list.txt"], deleted=["notes.txt"])
    assert doubts("The file 'list.txt' was renamed to 'notes.txt'.", facts, []) == [
        "the answer says list.txt became notes.txt; this turn did the reverse"
    ]
    assert doubts("Renamed list.txt to notes.txt.", facts, []) == [
        "the answer says list.txt became notes.txt; this turn did the reverse"
    ]
    assert doubts("Renamed notes.txt to list.txt.", facts, []) == []
    assert doubts("notes.txt was renamed to list.txt.", facts, []) == []


def test_an_output_said_to_be_what_no_run_printed() -> None:
    facts = TurnFacts(commands=[CommandRun("python3 test_calc.py", 1, "AssertionError")])
    assert doubts("The actual output is 10.", facts, ["AssertionError"]) == [
        "the answer says something printed 10; no result this turn holds it"
    ]
    # What a run should print is not a claim of what it printed.
    assert doubts("The expected output is 8.", facts, ["AssertionError"]) == []
    assert doubts("The output is 8.", facts, ["8\n"]) == []


def test_the_task_given_back_as_the_answer() -> None:
    task = "in utils.py, call the function foo bar instead, everywhere"
    echo = "Call the function foo bar instead, everywhere."
    assert doubts(echo, TurnFacts(), [], task=task) == [
        "the answer repeats the task's words; this turn changed no file"
    ]
    assert doubts(echo, TurnFacts(changed=["utils.py"]), [], task=task) == []
    # A commit changes no file of the workspace.
    commit = "git commit everything with message 'first'"
    assert doubts("Commit everything with message 'first'.", TurnFacts(), [], task=commit) == []
    # An answer in the task's words that adds what was found is an answer.
    question = "what is the third line of notes.txt?"
    assert doubts("The third line of notes.txt is third.", TurnFacts(), [], task=question) == []


def test_a_failure_told_after_the_test_passed() -> None:
    ran = [
        CommandRun("python3 test_calc.py", 1, "AssertionError"),
        CommandRun("python3 test_calc.py", 0, "ok"),
    ]
    facts = TurnFacts(changed=["calc.py"], commands=ran)
    said = "The task failed because the assert statement was not met."
    assert doubts(said, facts, ["AssertionError", "ok"]) == [
        "the answer says it failed; the last test run, `python3 test_calc.py`, passed"
    ]
    assert doubts("The test failed at first; then I fixed calc.py.", facts, []) == []
    # The last run failed: saying so is the account.
    failing = TurnFacts(commands=ran[:1], failed=["bash python3 test_calc.py: AssertionError"])
    assert doubts(said, failing, ["AssertionError"]) == []


def test_a_line_of_a_file_quoted_wrong(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("first\nsecond\nthird\n")
    facts = TurnFacts()
    assert doubts("Third line of notes.txt is 3.", facts, [], workspace=tmp_path) == [
        "the answer says line 3 of notes.txt is '3'; it is 'third'"
    ]
    assert doubts("The third line of notes.txt is 'third'.", facts, [], workspace=tmp_path) == []
    assert doubts("Line 2 of notes.txt is second.", facts, [], workspace=tmp_path) == []
    assert doubts("Line 2 in notes.txt is first.", facts, [], workspace=tmp_path) == [
        "the answer says line 2 of notes.txt is 'first'; it is 'second'"
    ]


def test_nothing_changed_said_of_a_turn_that_changed_files() -> None:
    # beecode's words for the last, repeated write, strung into the report of a turn that wrote.
    said = "I wrote math_utils.py (8 lines) and nothing changed."
    assert doubts(said, TurnFacts(changed=["math_utils.py"]), []) == [
        "the answer says nothing changed; this turn changed math_utils.py"
    ]
    assert doubts("No changes were made.", TurnFacts(), []) == []

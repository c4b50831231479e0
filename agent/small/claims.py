"""Where a turn's answer contradicts its facts (``agent.facts``), said beside the answer.

Small models copy report templates: "Created fib.py; running it printed 5." when the run printed
nothing, or "Config.py has been updated" after the only edit failed. These kinds are caught, each
by a plain reading of the answer, and none rewrites it (the model's words stay the model's; a
policy may leave them out, ``StepPolicy.kept_answer``):
- a file named in a sentence claiming a change (not one saying it failed or did not happen) that
  the turn did not create, change or delete;
- a sentence claiming a change ("It is now true.") in a turn that changed no file;
- "printed X" (or output, returned, shows) where no result of the turn holds X;
- an answer that does not mention a failure while a failed step was not recovered;
- an answer that repeats beecode's words to the model (an error or a hint) as its own, or
  speaks of "the answer" as beecode's checks do;
- tests said to pass that no command of the turn ran to exit 0;
- the task's own words given back as the answer, in a turn that changed no file;
- the task or its test said to fail where the turn's last test run passed;
- "nothing changed" said of a turn that changed files;
- the task said done where it asks for a commit and none ran, or for a change of a file it
  names and no file changed;
- a line of a file quoted wrong, a line said removed that was not, a file said not to run after
  it ran, a file named that is nowhere, a rename or move told backwards
  (``agent.small.claims_lines``);
- a value or a line count claimed for a file the turn changed ("It is now true.", "notes.txt now
  has four lines") that the file as it is now does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from agent.facts import TurnFacts
from agent.small.claims_lines import (
    line_said,
    not_run_said,
    nowhere_named,
    removed_said,
    reversed_said,
)
from agent.small.task_change import asks_change
from tools.files import workspace_text

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n")
_FILE = re.compile(r"[\w./-]*\w\.[A-Za-z]\w{0,5}\b")
# Past forms only: "adds" or "creates" describes code ("a function that adds two numbers"),
# "added" or "has been created" claims a change. Not "set": "the port set in config.ini".
_CHANGE = re.compile(
    r"\b(created|wrote|written|updated|changed|modified|added|edited|renamed|saved|fixed|"
    r"replaced|deleted|removed|appended|inserted|moved)\b"
    # A setting's new state ("debug is now true"); not "is enabled" or "is now running", which
    # describe what a read or a command showed.
    r"|\b(?:is|are) now (?:set|enabled|disabled|true|false|on|off)\b"
    # "Set port to 9090 in config.ini.": a report when it opens the sentence.
    r"|^\W*(?:I\s+)?set\b(?!\s+up\b).*\bto\b"  # not "Set up a venv to run main.py"
    r"|\b(?:has|have) been set\b|\b(?:was|were) set to\b",  # "The port has been set to 9090"
    re.I,
)
# A setting's value claimed ("now true", "to 9090"): the changed file must hold it.
_VALUE = re.compile(
    r"\b(?:now|to)\s+[\"'`]?(true|false|on|off|yes|no|enabled|disabled|-?\d+(?:\.\d+)?)\b", re.I
)
# Code claimed for a file ("updated to return `x + 3`"): the file must hold it.
_CODE = re.compile(r"\bto\s+(?:return\s+|be\s+)?`([^`\n]+)`", re.I)
# A value said of the state, and the words a file may hold it in ("enabled": debug = true).
_SAME = {
    "true": ("true", "yes", "on", "enabled", "1"),
    "false": ("false", "no", "off", "disabled", "0"),
}
_SAME |= {word: same for same in list(_SAME.values()) for word in same}
# "put out/log.txt saying empty", "notes.txt contains 'buy milk'": the file must hold the text.
# Quoted, the whole text; else its first word ("contains fourth at the end"), never an article
# ("contains the text 'third'" holds 'third', not 'the').
_SAYING = re.compile(
    r"\b(?:(?:saying|containing|contains)(?:\s+the (?:text|words?|line|string|value):?)?"
    r"|with the (?:text|line|words?):?)(?:\s+exactly:?)?\s+"  # not 'exactly' of "exactly: Hi"
    r"(?:[\"'`]([^\"'`]+)[\"'`]|(?!(?:the|a|an|only|no|text|lines?)\b)([\w#-]+))",
    re.I,
)
# "notes.txt has four lines", and beecode's own form copied: "hello.sh (1 line)"
_LINES = re.compile(r"(?:\b(?:has|have|contains?|holds?)\s+|\()(\w+)\s+lines?\b", re.I)
_PASSES = re.compile(
    r"\btests?\b.*\bpass(?:es|ed)?\b|\bpass(?:es|ed)? (?:the |all )?tests?\b", re.I
)
_NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve".split()
# "The task failed because ...", "the test still fails"; not "it failed at first, then ...".
_FAILS = re.compile(r"\b(?:task|tests?|test_\w+\.py)\b[^.]*\b(?:fail(?:s|ed)?|is failing)\b", re.I)
_BEFORE = re.compile(r"\b(?:first|before|then|after|until|was fixed|now pass\w*)\b", re.I)
# "nothing changed", "no changes were made": said of a turn that changed files, untrue
_NOTHING = re.compile(
    r"\bnothing (?:was |has been )?changed\b|\bno changes? (?:was |were |has been )?made\b", re.I
)
_COMMIT = re.compile(r"\bcommit", re.I)  # a commit changes no file in the workspace
# "The task was completed successfully": checked where the task asks for a commit or a change
_ALL_DONE = re.compile(
    r"\b(?:task (?:is|was|has been) (?:completed|done|finished)|(?:completed|done) successfully)",
    re.I,
)
_NO_COMMIT = re.compile(r"\b(?:not|n't|without|never|no)\s+commit", re.I)
# ...but "Created README.md and added an initial commit" claims what a commit does not do
_MADE = re.compile(r"\b(?:created|wrote|written|updated|changed|modified|edited|fixed)\b", re.I)
# "The answer says 'three' instead of 'three'.": the shape of beecode's doubts, not an answer
_OF_AN_ANSWER = re.compile(r"\bthe answer (?:says|names|repeats|claims|does not)\b", re.I)
# The words of one of beecode's errors or hints, copied: a span this long is no coincidence.
COPIED_WORDS = 6
_PRINTED = re.compile(
    r"\b(?:print(?:ed|s)?|output(?:s|ted)?|returned|returns|shows?|showed|gave|displayed)"
    # "the actual output is 10": after is/was, only a number or a quoted text is a value
    r"(\s+(?:is|was))?\s*(?:out\s*)?:?\s*([\"'`]?)([^\s\"'`,;]+)",
    re.I,
)
_EXPECTED = re.compile(r"\b(?:expected|should|would|wanted|supposed)\b[^.]{0,20}$", re.I)
# "the output was printed", "the output of echo is 7": no value
_NOT_A_VALUE = frozenset(
    "nothing no a an the it that this to in of from for by with was is were are successfully"
    " correctly".split()
)
_ADMITS = re.compile(
    r"\b(fail\w*|error\w*|not|couldn\S*|cannot|can't|unable|didn\S*|wasn\S*|still|wrong)\b",
    re.I,
)


def doubts(
    answer: str,
    facts: TurnFacts,
    outputs: list[str],
    told: list[str] | None = None,
    workspace: Path | None = None,
    task: str = "",
    earlier: Callable[[str], str | None] | None = None,
) -> list[str]:
    """Each contradiction between the answer and the facts, in a line for the user. ``outputs``
    are the turn's results, ``told`` beecode's errors and hints to the model among them; the
    files the turn changed are read from ``workspace``, and as they were before it from
    ``earlier``."""
    found: list[str] = []
    touched = set(facts.files) | {name.rsplit("/", 1)[-1] for name in facts.files}
    sentences = _SENTENCE_END.split(answer)
    committed = any(c.exit_code == 0 and "commit" in c.command for c in facts.commands)
    for sentence in sentences:
        if not _CHANGE.search(sentence) or _ADMITS.search(sentence):
            continue  # no claim of a change, or one said not to have happened
        if committed and _COMMIT.search(sentence) and not _MADE.search(sentence):
            continue  # "Added README.md and committed it": the commit is the change
        names = _FILE.findall(sentence)
        for name in names:
            if name not in touched and name.rsplit("/", 1)[-1] not in touched:
                found.append(f"the answer names {name}, which this turn did not write")
        if not names and not touched and not _COMMIT.search(sentence):
            found.append(f"the answer claims a change ({sentence.strip()[:60]}); no file changed")
    found += _passed(sentences, facts) + reversed_said(answer, facts) + _failed(sentences, facts)
    found += not_run_said(sentences, facts)
    found += _done_said(answer, facts, task, committed)
    if facts.files and _NOTHING.search(answer):
        found.append(f"the answer says nothing changed; this turn changed {', '.join(facts.files)}")
    if not facts.files and _echoes(answer, task) and not _COMMIT.search(answer):
        found.append("the answer repeats the task's words; this turn changed no file")
    if workspace is not None:
        found += _held(sentences, facts, workspace) + line_said(answer, workspace)
        found += nowhere_named(sentences, facts, workspace, task + "\n".join(outputs), found)
        found += removed_said(sentences, facts, workspace, earlier) if earlier else []
    # Quoting an error to explain a failure is an account; the same words as a report are not.
    # A sentence that is beecode's words whole ("A step still fails: change the file to fix
    # it.") is a copy even where it speaks of a failure.
    heard = " ".join(" ".join(told or []).lower().split())
    plain = " ".join(s for s in sentences if not _ADMITS.search(s) or _whole_copy(s, heard))
    if copied := _copied(plain, heard):
        found.append(f"the answer repeats beecode's message to the model: {copied}")
    elif _OF_AN_ANSWER.search(answer):
        found.append("the answer speaks of an answer, in the words of beecode's checks")
    seen = "\n".join(outputs)
    for match in _PRINTED.finditer(answer):
        said, quoted, value = match.group(1), match.group(2), match.group(3).rstrip(".:!?)")
        if not value or value.lower() in _NOT_A_VALUE or _EXPECTED.search(answer[: match.start()]):
            continue  # no value, or what a run should print, not what it printed
        if said and not quoted and not re.search(r"\d", value):
            continue  # "the output is empty", "was printed"
        if not facts.commands:
            found.append(f"the answer says something printed {value}; this turn ran no command")
        elif value not in seen:
            found.append(f"the answer says something printed {value}; no result this turn holds it")
    if facts.failed and not _ADMITS.search(answer):
        found.append(f"the answer does not say that a step failed: {facts.failed[0]}")
    return list(dict.fromkeys(found))


def _done_said(answer: str, facts: TurnFacts, task: str, committed: bool) -> list[str]:
    """ "The task was completed successfully." where it asks for a commit and none ran, or for
    a change of a file it names and no file changed (`sed` that matched no line, a run)."""
    if committed or not _ALL_DONE.search(answer):
        return []
    if _COMMIT.search(task) and not _NO_COMMIT.search(task):
        return ["the answer says the task is done; it asks for a commit, and none ran"]
    if not facts.files and asks_change(task) and _FILE.search(task):
        return ["the answer says the task is done; it asks for a change, and no file changed"]
    return []


def _whole_copy(sentence: str, heard: str) -> bool:
    words = sentence.lower().split()
    return len(words) >= COPIED_WORDS and " ".join(words).rstrip(".") in heard


def _copied(answer: str, heard: str) -> str:
    """The first run of ``COPIED_WORDS`` words of the answer found in ``heard`` (beecode's words,
    flattened), or ""."""
    words = answer.lower().split()
    for at in range(len(words) - COPIED_WORDS + 1):
        run = " ".join(words[at : at + COPIED_WORDS])
        if run in heard:
            return " ".join(answer.split()[at : at + COPIED_WORDS])
    return ""


def _echoes(answer: str, task: str) -> bool:
    """The answer is the task's own words, in order ("Call the function foo bar instead."):
    a small model's echo, which reads as done and claims nothing."""
    said, asked = (" ".join(re.findall(r"[\w.-]*\w", t.lower())) for t in (answer, task))
    return len(said.split()) >= 4 and f" {said} " in f" {asked} "


def _failed(sentences: list[str], facts: TurnFacts) -> list[str]:
    """The task or its test said to fail where the turn's last test run exited 0 and no step
    failed: after the fix, the 0.5B model reported the failure it had started from."""
    tests = [c for c in facts.commands if re.search(r"test", c.command, re.I)]
    if facts.failed or not tests or tests[-1].exit_code != 0:
        return []
    if not any(_FAILS.search(s) and not _BEFORE.search(s) for s in sentences):
        return []
    return [f"the answer says it failed; the last test run, `{tests[-1].command}`, passed"]


def _passed(sentences: list[str], facts: TurnFacts) -> list[str]:
    """Tests said to pass that no command of the turn ran to exit 0: "test_calc.py passed"
    after a run of calc.py, which tests nothing."""
    found: list[str] = []
    passed = [c.command for c in facts.commands if c.exit_code == 0]
    for sentence in sentences:
        names = [n for n in _FILE.findall(sentence) if "test" in n.lower()]
        said = _PASSES.search(sentence) or (names and re.search(r"\bpass(?:es|ed)?\b", sentence))
        if not said or _ADMITS.search(sentence):
            continue
        ran = [n for n in names if any(Path(n).name in c for c in passed)]
        tested = any(re.search(r"test|check", c, re.I) for c in passed)
        for name in names if names else ([] if tested else ["the tests"]):
            if name not in ran:
                found.append(
                    f"the answer says {name} passed; no command this turn ran it to exit 0"
                )
    return found


def _held(sentences: list[str], facts: TurnFacts, workspace: Path) -> list[str]:
    """Values and line counts claimed for the files the turn changed that the files do not
    hold now. A sentence naming none of them speaks of them all."""
    mentioned = {n for s in sentences for n in _FILE.findall(s)}  # one read, not changed, too
    texts = {
        name: text
        for name in dict.fromkeys([*facts.created, *facts.changed, *mentioned])
        if (text := workspace_text(workspace, name)) is not None
    }
    found: list[str] = []
    for sentence in sentences:
        if not texts or _ADMITS.search(sentence):
            continue
        named = {n: t for n, t in texts.items() if n in sentence or Path(n).name in sentence}
        meant = named or texts
        claim = _CHANGE.search(sentence) or re.search(r"\bnow\b", sentence, re.I)
        for value in _VALUE.findall(sentence) if claim else []:
            words = "|".join(map(re.escape, _SAME.get(value.lower(), (value,))))
            word = re.compile(rf"(?<![\w.-])(?:{words})(?![\w.-])", re.I)
            if not any(word.search(t) for t in meant.values()):
                found.append(f"the answer says {value}; {', '.join(meant)} does not hold it")
        for code in _CODE.findall(sentence) if claim else []:
            if not any(" ".join(code.split()) in " ".join(t.split()) for t in meant.values()):
                found.append(f"the answer says {code!r}; {', '.join(meant)} does not hold it")
        for quoted, word in _SAYING.findall(sentence) if len(named) == 1 else []:
            ((name, held),), text = named.items(), quoted or word
            if text.lower() not in held.lower() and not _LINES.search(sentence):
                found.append(f"the answer says {name} holds {text!r}; it does not")
        for count in _LINES.findall(sentence) if len(meant) == 1 else []:
            ((name, text),) = meant.items()
            lines = len(text.splitlines())
            said = _NUMBERS.index(count.lower()) if count.lower() in _NUMBERS else count
            # wc -l counts newlines: a last line without one is counted by either reading.
            if str(said).isdigit() and int(said) not in (lines, text.count("\n")):
                found.append(f"the answer says {name} has {count} lines; it has {lines}")
    return found

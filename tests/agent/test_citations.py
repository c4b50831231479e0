"""The doubts beside any model's answer (``agent.loop.citations``): only what the facts make
certain without reading the answer's words, in any language."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.facts import TurnFacts
from agent.loop.citations import cited_doubts
from agent.model.scripted import call, text
from tests.agent.loop_kit import Face, make_agent

APP = "".join(f"line {n}\n" for n in range(1, 41))  # 40 lines


def doubts(ws: Path, answer: str, said: str = "", before: str | None = None) -> list[str]:
    return cited_doubts(answer, TurnFacts(), ws, said, lambda _: before)


@pytest.fixture
def project(ws: Path) -> Path:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text(APP)
    return ws


@pytest.mark.parametrize(
    "answer",
    [
        "The bug is at `src/app.py:12`.",
        "Der Fehler steckt in src/app.py:40.",  # the last line
        "Voir `app.py:3-9` et `src/app.py#L20`.",  # a path's last parts, a range, an anchor
        "It listens on `localhost:8080` (see example.com:443).",  # no file of the workspace
        "`requests/sessions.py:589` handles redirects.",  # a library's: its folder is not here
        'Python says `File "src/app.py", line 99`.',  # no citation
    ],
)
def test_true_citations_are_not_doubted(project: Path, answer: str) -> None:
    assert doubts(project, answer) == []


def test_a_line_past_the_files_end_is_doubted(project: Path) -> None:
    assert doubts(project, "See `src/app.py:120`.") == [
        "the answer cites src/app.py:120; it has 40 lines"
    ]
    assert doubts(project, "Siehe app.py:41.") == ["the answer cites app.py:41; it has 40 lines"]
    # As the file was at the turn's checkpoint, or quoted from a result: not doubted.
    assert doubts(project, "Removed `src/app.py:90`.", before=APP * 3) == []
    assert doubts(project, "pytest: src/app.py:120", said="src/app.py:120: AssertionError") == []


def test_a_file_that_is_nowhere_is_doubted_where_its_folder_is_here(project: Path) -> None:
    assert doubts(project, "Fixed in `src/routes.py:12`.") == [
        "the answer cites src/routes.py:12; no such file is in the workspace"
    ]
    assert doubts(project, "Fixed in `src/routes.py:12`.", said="read src/routes.py") == []


async def test_a_native_answer_is_not_read_for_english_claims(ws: Path) -> None:
    """The native path reads no English: the facts say what happened (the failed edit, the
    turn failed), beside the answer, and no doubt is made of its words."""
    (ws / "config.py").write_text("debug = False\n")
    edit = call("edit", {"path": "config.py", "old": "nope", "new": "x"})
    claim = text("Config.py has been updated; running it printed True. Committed.")
    agent, _ = make_agent(ws, [call("read", {"path": "config.py"}), edit, claim])
    finished = await agent.run_turn("set debug to True in config.py", Face())

    assert finished.stop_reason == "failed" and finished.facts.failed
    assert finished.facts.doubts == []


async def test_the_loop_puts_a_citations_doubt_in_the_facts(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\n")
    agent, _ = make_agent(ws, [call("read", {"path": "a.py"}), text("`a.py:7` sets x.")])
    finished = await agent.run_turn("what does a.py do?", Face())
    assert finished.facts.doubts == ["the answer cites a.py:7; it has 1 lines"]

"""The turn's facts under its answer in the TUI, on the real agent (only the model is scripted):
beecode's account of the files and commands, and a false claim of the answer said beside it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown

from agent.config import Config
from agent.model.scripted import call
from agent.tui.widgets.blocks import FactsBlock
from tests.factory import ENDPOINT, ScriptedRuntime, answer
from tests.tui.harness import running, turn

YOLO = Config(endpoint=ENDPOINT, permission_mode="yolo")


async def test_the_facts_block_follows_the_answer_and_doubts_it(workspace: Path) -> None:
    script = [
        call("write", {"path": "fib.py", "content": "x = 5\n"}),
        call("bash", {"command": "python3 fib.py"}),
        answer("Created fib.py; running it printed 5 (`fib.py:3`)."),
    ]
    async with running(ScriptedRuntime(workspace, script, YOLO)) as (app, pilot):
        await turn(app, pilot, "create fib.py that prints 5 and run it")
        blocks = list(app.main.conversation.children)
        reply = app.main.conversation.query_one(Markdown)
        facts = app.main.conversation.query_one(FactsBlock)
        assert blocks.index(facts) == blocks.index(reply) + 1
        assert str(facts.content).splitlines() == [
            "beecode:",
            "created fib.py",
            "ran `python3 fib.py` (exit 0)",
            "the answer cites fib.py:3; it has 1 lines",
        ]
        assert facts.has_class("-warning")


async def test_a_turn_that_only_answers_shows_no_facts(workspace: Path) -> None:
    async with running(ScriptedRuntime(workspace, [answer("4")], YOLO)) as (app, pilot):
        await turn(app, pilot, "what is 2 + 2?")
        assert not app.main.conversation.query(FactsBlock)

"""A running sub-agent in the TUI: one collapsible block with its agent, task, state, its own
figures and its calls; its permission prompt names it; ``/agents`` lists the agents."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from agent.model.scripted import Hold, Step, call
from agent.tui.app import BeeApp
from agent.tui.screens.info import TextScreen
from agent.tui.screens.permission import PermissionScreen
from agent.tui.widgets.subagent import SubagentBlock
from tests.factory import ScriptedRuntime, answer, stats
from tests.tui.harness import running, send, shown, until


def task(agent: str, prompt: str) -> list[Step]:
    return call("task", {"description": "look around", "prompt": prompt, "agent": agent})


async def test_a_sub_agent_is_one_collapsible_block_with_its_figures(workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    hold = Hold()
    script = [
        task("explore", "What is x?"),
        call("read", {"path": "app.py"}),
        [hold, *answer("x is 1.", figures=stats(tok_s=25.0, predicted=50))],
        answer("It is 1."),
    ]
    async with running(ScriptedRuntime(workspace, script)) as (app, pilot):
        await send(pilot, "what is x")
        await until(
            pilot, lambda: hold.reached.is_set() and app.main.conversation.query(SubagentBlock)
        )
        await until(pilot, lambda: "✓ read" in str(block(app).lines.content))
        assert "running" in str(block(app).title) and block(app).collapsed
        hold.release.set()
        await until(pilot, lambda: "It is 1." in shown(app))
        [done] = app.main.conversation.query(SubagentBlock)
        title = str(done.title)
        assert title.startswith("✓ explore  look around  done · 2 req")
        assert "tok/s" in title
        body = str(done.lines.content)
        assert "✓ read  app.py" in body and body.endswith("x is 1.")
        done.collapsed = False  # it opens like any tool block
        await pilot.pause()
        assert done.query_one(Static).display


def block(app: BeeApp) -> SubagentBlock:
    return app.main.conversation.query_one(SubagentBlock)


async def test_its_permission_prompt_names_it(workspace: Path) -> None:
    script = [
        task("general", "make x.txt"),
        call("write", {"path": "x.txt", "content": "x"}),
        answer("made it"),
        answer("done"),
    ]
    async with running(ScriptedRuntime(workspace, script)) as (app, pilot):
        await send(pilot, "go")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        question = str(app.screen.query_one("#question", Static).content)
        assert question == "general agent: Allow write to change files?"
        await pilot.press("y")
        await until(pilot, lambda: "done" in shown(app) and not app.main.busy)
        assert (workspace / "x.txt").read_text() == "x"


async def test_agents_lists_built_in_and_defined(workspace: Path) -> None:
    folder = workspace / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "tester.md").write_text("---\nname: tester\ndescription: Runs the tests\n---\nRun.\n")
    async with running(ScriptedRuntime(workspace, [])) as (app, pilot):
        await send(pilot, "/agents")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        text = "\n".join(str(s.content) for s in app.screen.query(Static))
        assert "tester  [project]" in text
        assert "explore  [built-in]" in text and "general  [built-in]" in text
        assert "(untrusted project: read-only tools)" in text

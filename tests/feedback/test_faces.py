"""The checks in the faces: a compact block in the TUI (the real app under Pilot), a line on
stderr and a ``checks`` list in headless json, each from a real ruff run."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from textual.widgets import Collapsible

from agent.config import Config
from agent.faces.headless import run_agent
from agent.model.scripted import call, text
from agent.tui.widgets.blocks import CheckBlock
from tests.agent.loop_kit import make_agent
from tests.factory import ENDPOINT, ScriptedRuntime, answer
from tests.feedback.conftest import python_project
from tests.feedback.test_loop import BAD, GOOD, fix
from tests.tui.harness import running, turn

pytestmark = pytest.mark.project_checks
LINE = ".venv/bin/ruff check --no-cache --no-fix --output-format=concise -- app.py"


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_headless_reports_each_check(ws: Path, output_format: str) -> None:
    python_project(ws, "ruff")
    replies = [call("write", {"path": "app.py", "content": BAD}), text("done"), fix(GOOD)]
    agent, _ = make_agent(ws, [*replies, text("fixed")], lsp=False)
    out, err = io.StringIO(), io.StringIO()
    assert run_agent(agent, "write app.py", output_format, out, err, "s1") == 0

    if output_format == "text":
        lines = [line for line in err.getvalue().splitlines() if "check" in line]
        assert lines == [
            f"beecode: check lint `{LINE}`: failed (exit 1)",
            f"beecode: check lint `{LINE}`: passed (exit 0)",
        ]
    else:
        checks = json.loads(out.getvalue())["checks"]
        assert [(c["type"], c["status"]) for c in checks] == [
            ("check_finished", "failed"),
            ("check_finished", "passed"),
        ]
        assert "F821" in checks[0]["output"]


@pytest.mark.usefixtures("beecode_dirs")
async def test_the_tui_shows_a_check_block(workspace: Path) -> None:
    python_project(workspace, "ruff")
    script = [call("write", {"path": "app.py", "content": BAD}), answer("done")]
    script += [fix(GOOD), answer("fixed")]
    config = Config(endpoint=ENDPOINT, permission_mode="yolo", lsp=False)
    async with running(ScriptedRuntime(workspace, script, config)) as (app, pilot):
        await turn(app, pilot, "write app.py")
        failed, passed = app.main.conversation.query(CheckBlock)
        assert failed.has_class("-failed") and not passed.has_class("-failed")
        assert str(failed.title).startswith(f"✗ lint  {LINE}  failed · exit 1")
        assert str(passed.title).startswith(f"✓ lint  {LINE}  passed")
        shown = failed.query_one(Collapsible.Contents).query_one(".output")
        assert "F821" in str(shown.render())


@pytest.mark.usefixtures("beecode_dirs")
async def test_lint_typed_in_the_tui_runs_and_the_model_fixes_it(workspace: Path) -> None:
    python_project(workspace, "ruff")
    (workspace / "app.py").write_text(BAD)
    config = Config(endpoint=ENDPOINT, permission_mode="yolo", lsp=False)
    script = [fix(GOOD), answer("fixed")]
    async with running(ScriptedRuntime(workspace, script, config)) as (app, pilot):
        await turn(app, pilot, "/lint")
        blocks = app.main.conversation.query(CheckBlock)
        assert [b.has_class("-failed") for b in blocks] == [True, False]
        assert str(blocks[0].title).startswith("✗ lint  .venv/bin/ruff check")
        assert (workspace / "app.py").read_text() == GOOD


def test_a_headless_run_that_cannot_ask_says_the_check_did_not_run(ws: Path) -> None:
    python_project(ws, "ruff")
    replies = [call("write", {"path": "app.py", "content": BAD}), text("done")]
    agent, _ = make_agent(ws, replies, mode="auto-edit", lsp=False)
    out, err = io.StringIO(), io.StringIO()
    assert run_agent(agent, "write app.py", "text", out, err, "s1") == 0

    said = err.getvalue()
    assert f"beecode: denied bash({LINE}): a headless run cannot ask" in said
    assert f"beecode: check lint `{LINE}`: not_run (No user is present to approve this" in said
    assert out.getvalue().strip() == "done"

"""The project's checks in the agent loop, with real ruff and pytest on temp projects: a failure
comes back to the model as the next message and the model fixes it; asked for as bash is; never
in plan mode; at most ``check_rounds`` times a turn; bounded in time."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from agent.config import Config, Mode
from agent.events import (
    CheckFinished,
    CheckStarted,
    Notice,
    PermissionChoice,
    PermissionDecision,
    PermissionRequest,
)
from agent.feedback.requested import run_requested
from agent.feedback.run import Feedback
from agent.model.scripted import Step, call, text
from agent.permissions.rules import Permissions
from agent.sessions.store import Session
from tests.agent.loop_kit import Face, make_agent
from tests.feedback.conftest import python_project
from tools.tool import ToolContext

pytestmark = pytest.mark.project_checks
BAD = "import os\n\nprint(undefined_name)\n"
GOOD = "import os\n\nprint(os.sep)\n"
TOLD = "beecode ran the project's checks"


def told(messages: list[dict[str, Any]]) -> list[str]:
    """The messages that told the model what the checks found."""
    said = [str(m["content"]) for m in messages if m["role"] == "user"]
    return [content for content in said if TOLD in content]


def fix(content: str) -> list[Step]:
    return call("bash", {"command": f"printf '%s' '{content}' > app.py"})


async def test_a_lint_failure_goes_back_to_the_model_which_fixes_it(ws: Path) -> None:
    python_project(ws, "ruff")
    replies = [call("write", {"path": "app.py", "content": BAD}), text("done"), fix(GOOD)]
    agent, model = make_agent(ws, [*replies, text("fixed")], auto_lint=True, lsp=False)
    face = Face()
    finished = await agent.run_turn("write app.py", face)

    assert finished.stop_reason == "done" and finished.final_text == "fixed"
    results = face.of(CheckFinished)
    assert [(r.kind, r.status) for r in results] == [("lint", "failed"), ("lint", "passed")]
    assert results[0].command.startswith(".venv/bin/ruff check") and "app.py" in results[0].command
    [message] = told(agent.messages)
    assert "app.py:3:7: F821 Undefined name `undefined_name`" in message
    assert len(model.requests) == 4  # write, answer, fix, answer: the check asked for none
    assert model.requests[2].messages[-1]["content"] == message  # the next step read it


async def test_a_check_is_asked_for_like_bash_and_a_denial_holds_for_the_session(
    ws: Path,
) -> None:
    python_project(ws, "ruff")
    replies = [call("write", {"path": "app.py", "content": BAD}), text("done")]
    again = [call("write", {"path": "two.py", "content": BAD}), text("done again")]
    agent, model = make_agent(ws, [*replies, *again], mode="auto-edit", lsp=False)
    face = Face(PermissionDecision("deny"))
    await agent.run_turn("write app.py", face)
    await agent.run_turn("write two.py", face)

    [asked] = face.of(PermissionRequest)
    assert asked.tool == "bash" and asked.subject.startswith(".venv/bin/ruff check")
    assert not face.of(CheckStarted)  # nothing ran
    assert [r.status for r in face.of(CheckFinished)] == ["not_run", "not_run"]
    assert not told(agent.messages) and len(model.requests) == 4


@pytest.mark.parametrize("choice", ["allow_once", "allow_always"])
async def test_an_allowed_check_runs_in_the_mode_that_asks(
    ws: Path, choice: PermissionChoice
) -> None:
    python_project(ws, "ruff")
    replies = [call("write", {"path": "app.py", "content": GOOD}), text("done")]
    again = [call("write", {"path": "two.py", "content": GOOD}), text("done")]
    agent, _ = make_agent(ws, [*replies, *again], mode="auto-edit", lsp=False)
    face = Face(PermissionDecision(choice), PermissionDecision("allow_once"))
    await agent.run_turn("write app.py", face)
    await agent.run_turn("write two.py", face)  # another line: the same check on other files
    assert [r.status for r in face.of(CheckFinished)] == ["passed", "passed"]
    assert len(face.of(PermissionRequest)) == (1 if choice == "allow_always" else 2)


async def test_the_rounds_a_turn_may_take_are_bounded(ws: Path) -> None:
    python_project(ws, "ruff")
    replies = [call("write", {"path": "app.py", "content": BAD}), text("done")]
    replies += [fix(BAD), text("fixed"), fix(BAD), text("fixed now"), text("never asked")]
    agent, model = make_agent(ws, replies, lsp=False, check_rounds=2)
    face = Face()
    finished = await agent.run_turn("write app.py", face)

    assert finished.final_text == "fixed now" and len(model.requests) == 6
    assert len(told(agent.messages)) == 2
    assert [r.status for r in face.of(CheckFinished)] == ["failed"] * 3  # the user sees the last
    assert "checks still fail after 2 rounds" in [n.message for n in face.of(Notice)][-1]


async def test_a_test_run_past_its_timeout_is_killed_and_told(ws: Path) -> None:
    replies = [call("write", {"path": "notes.txt", "content": "x"}), text("done"), text("ok")]
    options = {"test_cmd": "sleep 30", "auto_test": True, "test_timeout_s": 0.5, "lsp": False}
    agent, _ = make_agent(ws, replies, check_rounds=1, **options)
    face = Face()
    await agent.run_turn("write notes", face)

    results = face.of(CheckFinished)
    assert [(r.kind, r.status) for r in results] == [("test", "timed_out")] * 2
    assert results[0].summary == "timed out after 0.5 s"
    assert "$ sleep 30 (timed out after 0.5 s)" in told(agent.messages)[0]


async def test_failing_pytest_tests_go_back_until_they_pass(ws: Path) -> None:
    python_project(ws, "pytest")
    (ws / "tests").mkdir()
    (ws / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n")
    with (ws / "tests" / "test_calc.py").open("a") as f:
        f.write("    assert add(2, 3) == 5\n")
    wrong = "def add(a, b):\n    return a - b\n"
    right = "def add(a, b):\n    return a + b\n"
    replies = [call("write", {"path": "calc.py", "content": wrong}), text("done")]
    replies += [call("bash", {"command": f"printf '%s' '{right}' > calc.py"}), text("fixed")]
    agent, _ = make_agent(ws, replies, auto_test=True, lsp=False)
    face = Face()
    finished = await agent.run_turn("write calc.py", face)

    assert finished.final_text == "fixed"
    results = face.of(CheckFinished)
    assert [(r.kind, r.status) for r in results] == [("test", "failed"), ("test", "passed")]
    assert results[0].command == ".venv/bin/pytest -x -q"
    [message] = told(agent.messages)
    assert "short test summary info" in message or "FAILURES" in message
    assert "FAILED tests/test_calc.py::test_add" in message


def _feedback(ws: Path, mode: Mode, *, sandbox: bool = False, **config: Any) -> Feedback:
    cfg = Config(permission_mode=mode, **config)
    permissions = Permissions(cfg.permission_mode, [], [], ws, [])
    return Feedback(cfg, ToolContext(ws, sandbox=sandbox), permissions, Session.create(ws))


@pytest.mark.parametrize("mode", ["plan", "yolo"])
async def test_plan_mode_runs_no_check_nor_asks(ws: Path, mode: Mode) -> None:
    feedback = _feedback(ws, mode, test_cmd="touch ran", auto_test=True, lsp=False)
    face = Face()
    await feedback.after_turn(["app.py"], face)
    requested = await run_requested("test", feedback, face)

    assert not face.of(PermissionRequest)
    assert (ws / "ran").exists() == (mode == "yolo")  # the same check runs outside plan mode
    if mode == "plan":
        assert not face.of(CheckStarted)
        assert not isinstance(requested, str) and "plan mode runs no checks" in requested.final_text


async def test_lint_on_request_sends_its_failure_to_the_model(ws: Path) -> None:
    python_project(ws, "ruff")
    (ws / "app.py").write_text(BAD)
    agent, model = make_agent(ws, [fix(GOOD), text("fixed")], skills=True, lsp=False)
    face = Face()
    finished = await agent.run_turn("/lint", face)

    assert finished.final_text == "fixed"
    first = model.requests[0].messages[-1]["content"]
    assert "The user ran /lint" in first and "F821" in first
    assert [r.status for r in face.of(CheckFinished)] == ["failed", "passed"]
    clean = await agent.run_turn("/lint", face)  # passes: no model request
    assert clean.stop_reason == "done" and "passed" in clean.final_text
    assert len(model.requests) == 2


@pytest.mark.parametrize("sandbox", [True, False])
async def test_a_check_runs_in_the_bash_sandbox_without_secrets(
    ws: Path, sandbox: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sandbox and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed here")
    monkeypatch.setenv("DEMO_API_KEY", "sekrit-value")
    outside = ws.parent / "outside"
    line = f'test -z "$DEMO_API_KEY" && touch {outside}'
    feedback = _feedback(ws, "yolo", sandbox=sandbox, test_cmd=line, auto_test=True, lsp=False)
    face = Face()
    await feedback.after_turn(["notes.txt"], face)
    [result] = face.of(CheckFinished)
    assert result.status == "passed"  # it ran, and saw no secret
    assert outside.exists() == (not sandbox)  # sandboxed: /tmp is its own, the rest read-only


async def test_what_the_model_is_told_is_bounded(ws: Path) -> None:
    line = "seq 1 100000; exit 1"
    feedback = _feedback(ws, "yolo", test_cmd=line, auto_test=True, lsp=False)
    message = await feedback.after_turn(["notes.txt"], Face())
    assert message is not None and len(message) < 13_000 and message.count("\n") < 210
    assert "lines left out]" in message and message.endswith("\n100000\n[exit code 1]")

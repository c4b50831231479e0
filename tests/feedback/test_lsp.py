"""A real language server (basedpyright, from the test extra) on the files a turn changed: its
errors go back to the model, it is asked for like bash, kept for the session, stopped on close."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from agent.events import CheckFinished, CheckStarted, PermissionDecision, PermissionRequest
from agent.model.scripted import call, text
from tests.agent.loop_kit import Face, make_agent
from tests.feedback.conftest import python_project
from tests.feedback.test_loop import _feedback, told

pytestmark = pytest.mark.project_checks
SERVER = "basedpyright-langserver"


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def test_type_errors_go_back_to_the_model_and_the_server_stops_on_close(ws: Path) -> None:
    python_project(ws, SERVER)
    fix = call("bash", {"command": "printf 'x: int = 1\\n' > typed.py"})
    replies = [call("write", {"path": "typed.py", "content": 'x: int = "a"\n'}), text("done")]
    agent, _ = make_agent(ws, [*replies, fix, text("fixed")], auto_lint=False, lsp_timeout_s=120)
    face = Face()
    finished = await agent.run_turn("write typed.py", face)

    assert finished.final_text == "fixed"
    results = face.of(CheckFinished)
    assert [(r.kind, r.status) for r in results] == [("lsp", "failed"), ("lsp", "passed")]
    assert results[0].command == f".venv/bin/{SERVER} --stdio"
    [message] = told(agent.messages)
    assert "typed.py:1:10: Type" in message and "[reportAssignmentType]" in message
    server = agent.feedback._server
    assert server is not None and server._process is not None
    pid = server._process.pid  # one server for the two checks
    agent.close()
    assert gone(pid)


async def test_the_server_is_asked_for_and_a_denial_starts_nothing(ws: Path) -> None:
    python_project(ws, SERVER)
    replies = [call("write", {"path": "a.py", "content": "x = 1\n"}), text("done")]
    again = [call("write", {"path": "b.py", "content": "y = 1\n"}), text("done")]
    agent, _ = make_agent(ws, [*replies, *again], mode="auto-edit", auto_lint=False)
    face = Face(PermissionDecision("deny"))
    await agent.run_turn("write a.py", face)
    await agent.run_turn("write b.py", face)

    [asked] = face.of(PermissionRequest)
    assert asked.tool == "bash" and asked.subject == f".venv/bin/{SERVER} --stdio"
    assert not face.of(CheckStarted) and agent.feedback._server is None


async def test_a_server_slower_than_its_timeout_is_a_timed_out_check(ws: Path) -> None:
    python_project(ws, SERVER)
    (ws / "a.py").write_text('x: int = "a"\n')
    feedback = _feedback(ws, "yolo", lsp_timeout_s=0.001)  # no server starts in a millisecond
    face = Face()
    try:
        assert await feedback.after_turn(["a.py"], face) is None  # nothing to tell the model
        [result] = face.of(CheckFinished)
        assert result.status == "timed_out" and result.summary == "no diagnostics within 0.001 s"
        server = feedback._server
        assert server is not None and server._process is not None
        first = server._process.pid
        feedback.config.lsp_timeout_s = 120  # the next check starts afresh and gets the errors
        told = await feedback.after_turn(["a.py"], face)
        assert told is not None and "[reportAssignmentType]" in told and gone(first)
    finally:
        feedback.close()

"""Arguments a hostile or confused model can send: each is an error result the model reads, the
headless run finishes normally and the session file resumes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent.faces.headless import run_agent
from agent.model.scripted import call, text
from agent.sessions.store import Session
from tests.scripted import make_agent
from tools.argument_limits import MAX_DEPTH, argument_problem

DEEP_LIST = '{"path": ' + "[" * 100_000 + "]" * 100_000 + "}"
DEEP_OBJECT = '{"path": "a", "x": ' + '{"a":' * 900 + "1" + "}" * 900 + "}"
BAD_CALLS = {
    "deep list": ("read", DEEP_LIST, "not valid JSON (nested too deeply)"),
    "deep object": ("read", DEEP_OBJECT, f"nested deeper than {MAX_DEPTH} levels"),
    "surrogate content": ("write", '{"path": "a.txt", "content": "\\ud800"}', "lone surrogate"),
    "surrogate path": ("write", '{"path": "\\udc80", "content": "x"}', "lone surrogate"),
    "nul path": ("read", '{"path": "a\\u0000b"}', "NUL byte"),
    "surrogate command": ("bash", '{"command": "echo \\ud800"}', "lone surrogate"),
    "surrogate key": ("read", '{"path": "a", "\\ud800": 1}', "lone surrogate"),
    "unknown user": ("write", '{"path": "~nosuchuser0/x", "content": "x"}', "bad path"),
}


def headless(ws: Path, name: str, raw: str) -> tuple[int, dict[str, Any], Session]:
    session = Session.create(ws)
    agent, _ = make_agent(ws, [call(name, raw, "c1"), text("gave up")], session=session, system="s")
    out, err = io.StringIO(), io.StringIO()
    status = run_agent(agent, "do it", "json", out, err, agent.session.id)
    return status, json.loads(out.getvalue()), session


@pytest.mark.parametrize(("name", "raw", "reason"), BAD_CALLS.values(), ids=list(BAD_CALLS))
def test_bad_arguments_are_an_error_result_and_the_session_resumes(
    ws: Path, name: str, raw: str, reason: str
) -> None:
    status, result, session = headless(ws, name, raw)
    # A call that ran and failed, never tried again, makes the answer a failed turn's (exit 3).
    assert status == (3 if result["failed"] else 0) and result["result"] == "gave up"
    [tool_call] = result["tool_calls"]
    assert tool_call["is_error"] and reason in tool_call["output"]
    assert list(ws.iterdir()) == []  # nothing ran
    history = Session.open(session.id).messages()
    assert [m["role"] for m in history] == ["user", "assistant", "tool", "assistant"]


def test_content_may_hold_nul_bytes_but_paths_may_not() -> None:
    assert argument_problem({"path": "a", "content": "x\0y", "old": "\0", "new": ""}) is None
    assert "field 'paths[1]'" in str(argument_problem({"paths": ["a", "b\0"]}))
    assert argument_problem({"a": [[[[1]]]]}) is None

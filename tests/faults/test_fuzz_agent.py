"""Fuzzing what a model or a file can hand the agent: tool-call argument text, arguments, paths,
tool calls on real files, session lines. Each test states its case count (RELIABILITY.md)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agent.model.toolcalls import parse_arguments, parse_text_calls
from agent.sessions.shapes import message_problem
from agent.sessions.store import Session
from tests.faults.fuzzing import ANY_CHAR, JSONISH, TEXT, fuzzed
from tools.argument_limits import argument_problem
from tools.edit import EditTool
from tools.files import LsTool, ReadTool, WriteTool
from tools.paths import resolve_in_workspace
from tools.search import GlobTool, GrepTool
from tools.todo import TodoTool
from tools.tool import BaseTool, ToolContext, ToolError, ToolResult

WORKSPACE = Path(tempfile.mkdtemp(prefix="beecode-fuzz-")).resolve()
(WORKSPACE / "a.txt").write_text("alpha\nbeta\n")
(WORKSPACE / "latin.cfg").write_bytes(b"caf\xe9 = 1\n")
CTX = ToolContext(WORKSPACE, max_output_chars=2000)
TOOLS: list[BaseTool] = [
    ReadTool(), WriteTool(), EditTool(), LsTool(), GlobTool(rg=None), GrepTool(rg=None),
    TodoTool(),
]  # fmt: skip
KEYS = st.sampled_from(["path", "content", "old", "new", "offset", "limit", "pattern", "glob",
                        "replace_all", "ignore_case", "todos", "x"])  # fmt: skip


@fuzzed(2500)
@given(
    st.one_of(st.text(ANY_CHAR), JSONISH.map(json.dumps), JSONISH.map(lambda v: json.dumps(v)[:-1]))
)
def test_argument_text_is_parsed_or_refused(raw: str) -> None:
    arguments, error = parse_arguments(raw)
    assert (arguments is None) == (error is not None)
    if arguments is not None:
        assert isinstance(arguments, dict) and argument_problem(arguments) is None
    parse_text_calls(raw, ["read", "write"])  # never raises either


@fuzzed(1500)
@given(st.sampled_from(TOOLS), st.dictionaries(KEYS, JSONISH, max_size=5))
def test_a_tool_given_any_arguments_returns_a_result(tool: BaseTool, args: dict[str, Any]) -> None:
    if argument_problem(args) is not None:
        return  # refused before any tool sees it (test_argument_text_is_parsed_or_refused)
    result = asyncio.run(tool.run(args, CTX))
    assert isinstance(result, ToolResult) and isinstance(result.output, str)
    result.output.encode("utf-8")  # the model and the session file can take it


@fuzzed(1500)
@given(st.text(ANY_CHAR, max_size=60))
def test_any_path_resolves_inside_the_workspace_or_is_refused(path: str) -> None:
    try:
        full = resolve_in_workspace(path, CTX)
    except ToolError:
        return
    assert full.is_relative_to(WORKSPACE)


LINES = st.one_of(
    st.binary(max_size=80),
    JSONISH.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"type": st.just("message"), "message": JSONISH}).map(
        lambda r: json.dumps(r).encode()
    ),
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["user", "assistant", "tool", "system"]),
            "content": JSONISH,
            "tool_calls": JSONISH,
            "tool_call_id": JSONISH,
        }  # fmt: skip
    ).map(lambda m: json.dumps({"type": "message", "message": m}).encode()),
    st.fixed_dictionaries({"type": st.just("rewind"), "to": st.integers(-5, 4000)}).map(
        lambda r: json.dumps(r).encode()
    ),
)


@fuzzed(1500)
@given(st.lists(LINES, max_size=12))
def test_any_session_file_loads_as_a_valid_history(lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(b"\n".join(lines))
        history = Session("x", path, WORKSPACE).messages()
    for message in history:
        assert message_problem(message) is None
    answered = 0
    for index, message in enumerate(history):  # each call's results follow it at once
        calls = [c["id"] for c in message.get("tool_calls") or []]
        following = [m.get("tool_call_id") for m in history[index + 1 : index + 1 + len(calls)]]
        assert following == calls
        answered += len(calls)
    assert sum(m["role"] == "tool" for m in history) == answered


@fuzzed(1000)
@given(JSONISH, TEXT)
def test_argument_problem_never_raises(value: Any, key: str) -> None:
    problem = argument_problem({key: value})
    assert problem is None or isinstance(problem, str)

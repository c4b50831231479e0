"""The registry: stable schemas, exact validation messages, the contract every tool meets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.tools.processes import wait_for_file, wait_until_dead
from tools.registry import ToolRegistry, default_registry
from tools.todo import TodoTool
from tools.tool import Tool, ToolContext

NAMES = ["bash", "read", "write", "edit", "glob", "grep", "ls", "git", "todo"]


@pytest.fixture
def registry() -> Iterator[ToolRegistry]:
    with default_registry() as registry:
        yield registry


def test_default_tools_in_a_fixed_order(registry: ToolRegistry) -> None:
    assert registry.names() == NAMES
    assert all(isinstance(registry.get(name), Tool) for name in NAMES)
    assert registry.get("nope") is None


def test_schemas_are_openai_shaped_byte_stable_and_compact(registry: ToolRegistry) -> None:
    schemas = registry.schemas()
    assert [schema["function"]["name"] for schema in schemas] == NAMES
    assert all(schema["type"] == "function" for schema in schemas)
    with default_registry() as other:
        assert json.dumps(other.schemas()) == json.dumps(schemas)
    # Every character is prefilled on every turn by a slow local model: keep the budget.
    assert len(json.dumps(schemas)) < 3200


def test_adding_a_name_twice_is_refused(registry: ToolRegistry) -> None:
    with pytest.raises(ValueError, match="'todo' is already registered"):
        registry.add(TodoTool())


@pytest.mark.parametrize(
    ("name", "args", "problem"),
    [
        ("read", {"path": "a"}, None),
        ("todo", {"items": [{"text": "a", "done": False}]}, None),
        ("fly", {}, "unknown tool 'fly'; tools: " + ", ".join(NAMES)),
        ("read", ["a"], "arguments must be a JSON object, got array"),
        ("read", "a.txt", "arguments must be a JSON object, got string"),
        ("read", {}, "missing required field 'path'"),
        ("read", {"path": "a", "file": "b"}, "unknown field 'file' (fields: path, offset, limit)"),
        ("read", {"path": 3}, "field 'path' must be string, got integer"),
        ("read", {"path": "a", "limit": True}, "field 'limit' must be integer, got boolean"),
        ("read", {"path": "a", "limit": 2.5}, "field 'limit' must be integer, got number"),
        ("read", {"path": "a", "limit": 2.0}, "field 'limit' must be integer, got number"),
        (
            "grep",
            {"pattern": "x", "ignore_case": 1},
            "field 'ignore_case' must be boolean, got integer",
        ),
        (
            "git",
            {"action": "status", "paths": ["a", 2]},
            "field 'paths[1]' must be string, got integer",
        ),
        (
            "todo",
            {"items": [{"text": "a", "done": False, "why": 1}]},
            "unknown field 'items[0].why' (fields: text, done)",
        ),
    ],
)
def test_validation_names_the_exact_problem(
    registry: ToolRegistry, name: str, args: Any, problem: str | None
) -> None:
    assert registry.validate(name, args) == problem


def test_foreign_schemas_are_checked_leniently() -> None:
    # MCP servers bring schemas with types lists, open objects and keywords we do not check.
    class Foreign(TodoTool):
        name = "mcp_thing"
        parameters = {
            "type": "object",
            "properties": {"q": {"type": ["string", "null"], "minLength": 1}},
            "additionalProperties": True,
        }

    registry = ToolRegistry([Foreign()])
    assert registry.validate("mcp_thing", {"q": None, "extra": 1}) is None
    problem = registry.validate("mcp_thing", {"q": 1})
    assert problem == "field 'q' must be string or null, got integer"
    # Any other keyword JSON schema defines is checked too, in jsonschema's words.
    assert registry.validate("mcp_thing", {"q": ""}) == "field 'q': '' should be non-empty"


def test_a_schema_jsonschema_cannot_use_is_not_checked() -> None:
    class Broken(TodoTool):
        name = "mcp_broken"
        parameters = {"type": "object", "properties": {"q": {"type": "text"}}}

    assert ToolRegistry([Broken()]).validate("mcp_broken", {"q": 1}) is None


@pytest.mark.parametrize(
    ("name", "args", "kind", "subject", "paths"),
    [
        ("bash", {"command": "ls -la"}, "execute", "ls -la", []),
        ("bash", {"job": 2}, "read", "job 2 read", []),
        ("bash", {"job": 2, "action": "stop"}, "execute", "job 2 stop", []),
        ("read", {"path": "./src/a.py"}, "read", "src/a.py", ["src/a.py"]),
        ("write", {"path": "b.txt", "content": ""}, "edit", "b.txt", ["b.txt"]),
        ("edit", {"path": "src/../c.py", "old": "a", "new": "b"}, "edit", "c.py", ["c.py"]),
        ("glob", {"pattern": "*.py"}, "read", ".", ["."]),
        ("grep", {"pattern": "x", "path": "src"}, "read", "src", ["src"]),
        ("ls", {}, "read", ".", ["."]),
        ("git", {"action": "add", "paths": ["a.py"]}, "execute", "git add -- a.py", ["a.py"]),
        ("todo", {"items": []}, "read", "plan", []),
    ],
)
def test_kind_subject_and_paths(
    registry: ToolRegistry,
    name: str,
    args: dict[str, Any],
    kind: str,
    subject: str,
    paths: list[str],
) -> None:
    tool = registry.get(name)
    assert tool is not None
    assert (tool.kind(args), tool.subject(args), tool.paths(args)) == (kind, subject, paths)


async def test_close_stops_background_jobs(ctx: ToolContext) -> None:
    registry = default_registry()
    bash = registry.get("bash")
    assert bash is not None
    command = "sleep 300 & echo $! > child.pid; wait"
    await bash.run({"command": command, "background": True}, ctx)
    child = int(await asyncio.to_thread(wait_for_file, ctx.workspace / "child.pid"))
    registry.close()
    assert wait_until_dead(child)

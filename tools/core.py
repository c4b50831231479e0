"""What every built-in tool shares: the error type, argument checking and the run wrapper.

A tool subclasses ``BaseTool``, sets its name, description and schema, and writes ``execute``.
``run`` checks the arguments against the schema first, so ``execute`` can trust their types, and
turns ``ToolError`` and ``OSError`` into error results: failures are data for the model.
"""

from __future__ import annotations

import os
from typing import Any

from tools.base import Kind, ToolContext, ToolResult
from tools.schema_check import check_arguments

STR: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
BOOL: dict[str, Any] = {"type": "boolean"}


def params(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object schema; every token of it is prefilled on every turn, so no descriptions here."""
    schema: dict[str, Any] = {"type": "object", "properties": {**required, **(optional or {})}}
    if required:
        schema["required"] = list(required)
    return schema


class ToolError(Exception):
    """A failure the model should read and act on (bad path, no match, git refused)."""


class BaseTool:
    name: str
    description: str
    parameters: dict[str, Any]

    def kind(self, args: dict[str, Any]) -> Kind:
        return "read"

    def subject(self, args: dict[str, Any]) -> str:
        return self.paths(args)[0]

    def paths(self, args: dict[str, Any]) -> list[str]:
        # Path tools: the path as given, normalised so "./src/a.py" matches a "src/**" rule.
        return [os.path.normpath(str(args.get("path") or "."))]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        problem = check_arguments(self.parameters, args)
        if problem is not None:
            return ToolResult(problem, is_error=True)
        try:
            return await self.execute(args, ctx)
        except ToolError as error:
            return ToolResult(str(error), is_error=True)
        except OSError as error:
            return ToolResult(describe_os_error(error), is_error=True)

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise NotImplementedError


def describe_os_error(error: OSError) -> str:
    if error.filename is not None:
        return f"{error.strerror or error}: {error.filename}"
    return str(error.strerror or error)

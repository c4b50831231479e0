"""What a tool is: the contract every tool meets, and ``BaseTool``, which the built-in ones share.

A tool has a short schema for the model and an async executor. Failures are data: an executor
returns ``ToolResult(is_error=True)`` with a message the model can act on, and only raises for bugs.
The agent decides permissions from ``kind`` and ``subject``. A built-in tool subclasses
``BaseTool``, sets its name, description and schema, and writes ``execute``; ``run`` checks the
arguments against the schema first, so ``execute`` can trust their types, and turns ``ToolError``
and ``OSError`` into error results.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from tools.arguments import check_arguments

if TYPE_CHECKING:
    from tools.textfiles import TextFiles

# read: never changes anything; edit: changes files; execute: runs commands or changes git state.
Kind = Literal["read", "edit", "execute"]


@dataclass(frozen=True)
class Image:
    """An image a tool returned (an MCP server's image content), base64-encoded."""

    mime_type: str
    data: str


@dataclass(frozen=True)
class ToolResult:
    output: str
    is_error: bool = False
    # Extras for the faces (a diff, an exit code, a path); never sent to the model.
    meta: dict[str, Any] = field(default_factory=dict)
    # Shown to a model that sees images (the output describes each in one line for one that
    # does not).
    images: tuple[Image, ...] = ()


@dataclass
class ToolContext:
    workspace: Path
    # Directories outside the workspace that file tools may touch (granted by rule or by the user).
    extra_roots: list[Path] = field(default_factory=list)
    bash_timeout_s: float = 120.0
    bash_max_timeout_s: float = 600.0
    max_output_chars: int = 30_000
    # Secret-looking environment variables bash may still see (tools.environment).
    pass_env: list[str] = field(default_factory=list)
    # Run bash and jobs inside bubblewrap (tools.sandbox): no network, only the workspace writable.
    sandbox: bool = False
    # The user trusts the workspace (trusted_workspaces): git run by bash may use the repository's
    # own config, its hooks included (tools.git_safety.command_git_env is not applied).
    trusted_workspace: bool = False
    # An editor that reads and writes the file tools' text (its unsaved buffers); None: the disk.
    text_files: TextFiles | None = None


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object

    def kind(self, args: dict[str, Any]) -> Kind:
        """What a call with these arguments does (git status reads, git commit executes)."""
        ...

    def subject(self, args: dict[str, Any]) -> str:
        """The string permission rules match against: a command line, a path, a git subcommand."""
        ...

    def paths(self, args: dict[str, Any]) -> list[str]:
        """File paths the call touches, for the workspace boundary check (empty when none)."""
        ...

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


@runtime_checkable
class Router(Protocol):
    """A tool that carries out a call of another tool (``mcp_tools`` call NAME): the call is
    judged by the permissions as a call of that tool, so its rules apply either way."""

    def routes_to(self, args: dict[str, Any]) -> tuple[Tool, dict[str, Any]] | None:
        """The tool this call runs and its arguments; None when it runs none."""
        ...


def openai_schema(tool: Tool) -> dict[str, Any]:
    """The tool as the OpenAI chat API's ``tools`` entry."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


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
    """A failure the model should read and act on (bad path, no match, git refused); ``meta``
    goes into the error result (what the loop reads, never the model)."""

    def __init__(self, message: str, meta: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.meta = meta or {}


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
            return ToolResult(str(error), is_error=True, meta=error.meta)
        except OSError as error:
            return ToolResult(describe_os_error(error), is_error=True)

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise NotImplementedError


def describe_os_error(error: OSError) -> str:
    if error.filename is not None:
        return f"{error.strerror or error}: {error.filename}"
    return str(error.strerror or error)

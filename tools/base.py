"""The contract every tool implements: a short schema for the model and an async executor.

Failures are data: an executor returns ``ToolResult(is_error=True)`` with a message the model can
act on, and only raises for bugs. The agent decides permissions from ``kind`` and ``subject``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

# read: never changes anything; edit: changes files; execute: runs commands or changes git state.
Kind = Literal["read", "edit", "execute"]


@dataclass(frozen=True)
class ToolResult:
    output: str
    is_error: bool = False
    # Extras for the faces (a diff, an exit code, a path); never sent to the model.
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolContext:
    workspace: Path
    # Directories outside the workspace that file tools may touch (granted by rule or by the user).
    extra_roots: list[Path] = field(default_factory=list)
    bash_timeout_s: float = 120.0
    bash_max_timeout_s: float = 600.0
    max_output_chars: int = 30_000


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

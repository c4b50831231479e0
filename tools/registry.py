"""The tools a session offers the model, in a fixed order so the prompt prefix stays byte-stable."""

from __future__ import annotations

from collections.abc import Iterable
from types import TracebackType
from typing import Any

from tools.arguments import check_arguments
from tools.bash import BashTool
from tools.edit import EditTool
from tools.files import LsTool, ReadTool, WriteTool
from tools.git import GitTool
from tools.search import GlobTool, GrepTool
from tools.todo import TodoTool
from tools.tool import Tool, openai_schema


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def insert(self, tool: Tool) -> None:
        """Add ``tool`` before the MCP servers' tools (theirs come and go with the servers)."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        tools = list(self._tools.values())
        at = next(
            (n for n, t in enumerate(tools) if type(t).__module__.startswith("tools.mcp")), None
        )
        tools.insert(len(tools) if at is None else at, tool)
        self._tools = {t.name: t for t in tools}

    def remove(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """The OpenAI ``tools`` list, in the order the tools were added."""
        return [openai_schema(tool) for tool in self._tools.values()]

    def parameters(self) -> dict[str, dict[str, Any]]:
        """Each tool's argument schema, by name."""
        return {name: tool.parameters for name, tool in self._tools.items()}

    def validate(self, name: str, args: Any) -> str | None:
        """None when the call is valid, else the exact problem, worded for the model."""
        tool = self._tools.get(name)
        if tool is None:
            return f"unknown tool {name!r}; tools: {', '.join(self._tools)}"
        return check_arguments(tool.parameters, args)

    def close(self) -> None:
        """Stop what tools keep running (background bash jobs)."""
        for tool in self._tools.values():
            close = getattr(tool, "close", None)
            if callable(close):
                close()

    def __enter__(self) -> ToolRegistry:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def default_registry() -> ToolRegistry:
    return ToolRegistry(
        [
            BashTool(),
            ReadTool(),
            WriteTool(),
            EditTool(),
            GlobTool(),
            GrepTool(),
            LsTool(),
            GitTool(),
            TodoTool(),
        ]
    )

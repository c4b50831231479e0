"""The todo tool: the model's plan, replaced whole on each call and echoed back rendered."""

from __future__ import annotations

from typing import Any

from tools.tool import BOOL, STR, BaseTool, ToolContext, ToolResult, params

ITEM = {"type": "object", "properties": {"text": STR, "done": BOOL}, "required": ["text", "done"]}


class TodoTool(BaseTool):
    name = "todo"
    description = "Replace your plan with these items; mark finished ones done."
    parameters = params({"items": {"type": "array", "items": ITEM}})

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def subject(self, args: dict[str, Any]) -> str:
        return "plan"

    def paths(self, args: dict[str, Any]) -> list[str]:
        return []

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.items = [{"text": item["text"], "done": item["done"]} for item in args["items"]]
        return ToolResult(render(self.items), meta={"items": [dict(item) for item in self.items]})


def render(items: list[dict[str, Any]]) -> str:
    if not items:
        return "(plan is empty)"
    return "\n".join(f"[{'x' if item['done'] else ' '}] {item['text']}" for item in items)

"""The todo tool keeps the model's plan and renders it back."""

from __future__ import annotations

from tools.todo import TodoTool
from tools.tool import ToolContext


async def test_plan_is_replaced_and_rendered(ctx: ToolContext) -> None:
    todo = TodoTool()
    first = await todo.run({"items": [{"text": "read", "done": False}]}, ctx)
    assert first.output == "[ ] read"
    items = [{"text": "read", "done": True}, {"text": "edit", "done": False}]
    second = await todo.run({"items": items}, ctx)
    assert second.output == "[x] read\n[ ] edit"
    assert second.meta == {"items": items}
    assert todo.items == items
    assert (await todo.run({"items": []}, ctx)).output == "(plan is empty)"


async def test_bad_items_are_reported_and_keep_the_plan(ctx: ToolContext) -> None:
    todo = TodoTool()
    await todo.run({"items": [{"text": "keep", "done": False}]}, ctx)
    bad = await todo.run({"items": [{"text": "x", "done": "no"}]}, ctx)
    assert bad.is_error and bad.output == "field 'items[0].done' must be boolean, got string"
    missing = await todo.run({"items": [{"done": True}]}, ctx)
    assert missing.output == "missing required field 'items[0].text'"
    assert todo.items == [{"text": "keep", "done": False}]

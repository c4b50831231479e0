"""Which session lines hold a chat message the server will accept back; anything else (a hand
edit, a torn write, a record from another version) is skipped with a note, never a failed load."""

from __future__ import annotations

from typing import Any

ROLES = frozenset({"system", "user", "assistant", "tool"})


def message_problem(message: dict[str, Any]) -> str | None:
    """None when ``message`` has the shape of an OpenAI chat message, else what is wrong."""
    role = message.get("role")
    if role not in ROLES:
        return f"unknown role {role!r}"
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        return f"content is a {type(content).__name__}"
    if isinstance(content, list) and not all(isinstance(part, dict) for part in content):
        return "content parts are not all objects"
    calls = message.get("tool_calls")
    if calls is not None:
        if role != "assistant" or not isinstance(calls, list):
            return "tool_calls is not a list on an assistant message"
        for call in calls:
            problem = _call_problem(call)
            if problem is not None:
                return problem
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        return "a tool result without a tool_call_id"
    return None


def _call_problem(call: Any) -> str | None:
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        return "a tool call without an id"
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return "a tool call without a function name"
    if not isinstance(function.get("arguments", ""), str):
        return "a tool call whose arguments are not a string"
    return None

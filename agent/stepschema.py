"""Constrained steps for small models: every reply is one JSON object, a tool call or the answer.

llama-server turns ``response_format`` into a grammar, so a tiny model cannot produce anything
but ``{"name": <tool>, "arguments": {...}}`` (arguments matching that tool's schema) or
``{"answer": "..."}``. The tools are still sent, so the chat template describes them, and
past calls in the history render the same ``{"name", "arguments"}`` shape the model writes.
"""

from __future__ import annotations

import re
from typing import Any

from agent.toolcalls import ParsedCall, call_from_object, loads_lenient


def step_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    branches: list[dict[str, Any]] = []
    for tool in tools:
        function = tool["function"]
        branches.append(
            {
                "type": "object",
                "properties": {
                    "name": {"const": function["name"]},
                    "arguments": function.get("parameters") or {"type": "object"},
                },
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    branches.append(
        {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
            "additionalProperties": False,
        }
    )
    return {"anyOf": branches}


def step_response_format(tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "step", "schema": step_schema(tools)}}


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*(?:```)?\s*$", re.S)


def parse_step(text: str) -> str | ParsedCall:
    """The answer text, or the call (with an error when the reply is not a usable step)."""
    match = _FENCE.match(text)
    body = match.group(1) if match else text
    try:
        obj = loads_lenient(body)
    except ValueError as e:
        return ParsedCall("", None, f"the reply is not one JSON step object ({e})")
    if isinstance(obj, dict) and isinstance(obj.get("answer"), str):
        return str(obj["answer"])
    call = call_from_object(obj)
    if call is None:
        return ParsedCall(
            "", None, 'reply with {"name": <tool>, "arguments": {...}} or {"answer": "..."}'
        )
    return call

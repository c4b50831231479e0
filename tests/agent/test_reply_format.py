"""The reply format on the wire: a schema goes as a named ``json_schema`` response format, and a
narrowed step keeps every tool for the template (a free reply: test_model.py)."""

from __future__ import annotations

from typing import Any

from agent.model.endpoint import OpenAIChatModel, ReplyFormat
from agent.small.schema import STEP_MAX_TOKENS, step_format, step_tools
from tests.agent.sse_server import Script, chunk

BASH = {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}


def branch(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"name": {"const": name}, "arguments": arguments},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


async def test_a_narrowed_step_keeps_the_tools_and_narrows_the_grammar(endpoint: str) -> None:
    Script.body = [chunk({"content": '{"answer": "ok"}'}), chunk({}, finish="stop"), "[DONE]"]
    model = OpenAIChatModel(endpoint)
    write = {"type": "function", "function": {"name": "write", "parameters": {"type": "object"}}}
    described = step_tools([BASH, write])
    callable_now = [t for t in described if t["function"]["name"] != "write"]
    messages = [{"role": "user", "content": "hi"}]
    _ = [c async for c in model.stream(messages, described, reply_format=step_format(callable_now))]
    request = Script.requests[0]
    # The tools go whole, so the template describes them all; only the grammar narrows.
    assert [t["function"]["name"] for t in request["tools"]] == ["bash", "write", "answer"]
    answer = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    schema = {"anyOf": [branch("bash", {"type": "object"}), branch("answer", answer)]}
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "step", "schema": schema},
    }
    assert request["max_tokens"] == STEP_MAX_TOKENS  # a step is one call, never 4,096 tokens


async def test_any_schema_goes_as_a_named_json_schema(endpoint: str) -> None:
    Script.body = [chunk({"content": "{}"}), chunk({}, finish="stop"), "[DONE]"]
    reply_format = ReplyFormat({"type": "object"}, "plan")
    _ = [c async for c in OpenAIChatModel(endpoint).stream([], [], reply_format=reply_format)]
    request = Script.requests[0]
    assert "tools" not in request
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "plan", "schema": {"type": "object"}},
    }
    assert request["max_tokens"] == 4096  # no cap of its own: the endpoint's

"""What the loop tests share: an agent on the scripted model with the real tools, permissions
and sessions (``tests.scripted.make_agent``), a face that records events, and checks of the
history."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from agent.events import Event, PermissionDecision, PermissionRequest
from agent.loop.agent import Agent
from agent.model.scripted import Request
from agent.sessions.store import Session
from tests.scripted import make_agent as make_agent  # the loop tests' agent, shared with others


class Face:
    """Collects events; answers permission requests with the queued decisions."""

    def __init__(self, *answers: PermissionDecision) -> None:
        self.events: list[Event] = []
        self.answers = list(answers)

    def __call__(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, PermissionRequest):
            event.future.set_result(self.answers.pop(0))

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def step(name: str, **arguments: object) -> str:
    """A constrained step's reply text, as the model sends it."""
    return json.dumps({"name": name, "arguments": arguments})


def offered(request: Request) -> set[str]:
    """The names a constrained step may call: the branches of its reply schema."""
    schema = request.reply_format.schema
    assert schema is not None, "not a constrained step"
    return {branch["properties"]["name"]["const"] for branch in schema["anyOf"]}


def arguments_schema(request: Request, tool: str) -> Any:
    """The properties a constrained step's call of ``tool`` is held to."""
    schema = request.reply_format.schema
    assert schema is not None, "not a constrained step"
    for branch in schema["anyOf"]:
        if branch["properties"]["name"]["const"] == tool:
            return branch["properties"]["arguments"]["properties"]
    raise AssertionError(f"{tool} is not offered")


def results(agent: Agent) -> list[str]:
    """The tool results in the agent's history, in order."""
    return [m["content"] for m in agent.messages if m["role"] == "tool"]


def assert_valid_history(messages: list[dict[str, Any]]) -> None:
    """Every call answered right after its message, every argument string valid JSON."""
    for i, message in enumerate(messages):
        ids = [c["id"] for c in message.get("tool_calls") or []]
        for c in message.get("tool_calls") or []:
            assert isinstance(json.loads(c["function"]["arguments"]), dict)
        answers = [m["tool_call_id"] for m in messages[i + 1 : i + 1 + len(ids)]]
        assert answers == ids


def assert_session_mirrors(agent: Agent) -> None:
    assert Session.open(agent.session.id).messages() == agent.messages[1:]


async def wait_for(condition: Callable[[], bool], what: str = "") -> None:
    for _ in range(1000):  # a hang guard, not a timing: fails with what it waited for
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never happened: {what}")

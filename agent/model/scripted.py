"""A scripted ChatModel for deterministic tests of the loop and the faces (no server).

Each request pops the next scripted reply and replays its chunks. ``Hold`` pauses a reply
until the test releases it (or cancels the turn); an exception in a script is raised from the
stream, as a failing endpoint would. Every request is recorded for assertions.
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.events import RequestStats
from agent.model.endpoint import FREE, CallPiece, ModelChunk, ReplyFormat, StreamEnd, TextPiece

GATE_POLL_S = 0.005


class Gate:
    """An event set from any thread and awaited on any loop: the TUI runs the agent on a loop
    of its own (an asyncio.Event set from another thread need not wake its waiter)."""

    def __init__(self) -> None:
        self._flag = threading.Event()

    def set(self) -> None:
        self._flag.set()

    def is_set(self) -> bool:
        return self._flag.is_set()

    async def wait(self) -> None:
        while not self._flag.is_set():
            await asyncio.sleep(GATE_POLL_S)


@dataclass
class Hold:
    """Pauses the stream here; ``reached`` is set when it gets here, ``release`` lets it go on."""

    reached: Gate = field(default_factory=Gate)
    release: Gate = field(default_factory=Gate)


@dataclass(frozen=True)
class Request:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    reply_format: ReplyFormat = FREE


Step = ModelChunk | Hold | Exception
Script = Sequence[Step]


def stats(prompt_n: int = 10, cache_n: int = 0, predicted_n: int = 5) -> RequestStats:
    return RequestStats("server", 50.0, predicted_n, prompt_n, cache_n, None, None, 0.1)


def text(*pieces: str) -> list[Step]:
    """A reply that answers in words, streamed in the given pieces."""
    return [*(TextPiece(p) for p in pieces), StreamEnd("stop", stats())]


def call(name: str, arguments: dict[str, Any] | str, call_id: str | None = None) -> list[Step]:
    """A reply with one native tool call; a str is sent as the raw argument text."""
    return calls((name, arguments, call_id))


def calls(*specs: tuple[str, dict[str, Any] | str, str | None]) -> list[Step]:
    """A reply with several native calls; arguments arrive in two fragments, as servers send."""
    steps: list[Step] = []
    for index, (name, arguments, call_id) in enumerate(specs):
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        steps.append(
            CallPiece(index, call_id or f"call_{index}_{name}", name, raw[: len(raw) // 2])
        )
        steps.append(CallPiece(index, None, None, raw[len(raw) // 2 :]))
    steps.append(StreamEnd("tool_calls", stats()))
    return steps


class ScriptedModel:
    def __init__(self, replies: Iterable[Script]) -> None:
        self.replies = [list(r) for r in replies]
        self.requests: list[Request] = []

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        reply_format: ReplyFormat = FREE,
    ) -> AsyncIterator[ModelChunk]:
        self.requests.append(Request(copy.deepcopy(messages), tools, reply_format))
        if not self.replies:
            raise AssertionError("the scripted model has no reply left")
        for step in self.replies.pop(0):
            if isinstance(step, Hold):
                step.reached.set()
                await step.release.wait()
            elif isinstance(step, Exception):
                raise step
            else:
                yield step

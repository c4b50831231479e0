"""The context priced in seconds: the server's prefill rate, measured from its ``timings``.

On a local card the costly thing is prefill, so a context's tokens are shown beside the seconds
they take to read in cold, and a message that would take longer than ``prefill_notice_s`` (the
files attached to the user's words, an MCP result, a skill body, a big tool result) is announced
before the request that sends it. The rate is kept per profile (or endpoint) and machine in
``<data>/prefill.json``, so a new session prices its context before its first request.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.context.mentions import MARK
from agent.events import EventSink, Notice, RequestStats
from server.paths import read_json_object, write_json

if TYPE_CHECKING:  # the counter's module loads httpx: not on the way to the TUI's first paint
    from agent.context.prompt import TokenCounter

# A prompt this short is mostly per-request overhead: its rate says little about a long one.
MIN_MEASURED_TOKENS = 256
_WEIGHT = 0.3  # of a new measurement against the kept rate: it follows a change, damps noise


class PrefillRate:
    """Prompt tokens per second for one server on this machine; None until measured once."""

    def __init__(self, path: Path, server: str) -> None:
        self.path = path
        self.key = f"{server}@{socket.gethostname()}"
        kept = (read_json_object(path) or {}).get(self.key)
        rate = kept.get("tok_s") if isinstance(kept, dict) else None
        self.tok_s: float | None = None
        if isinstance(rate, int | float) and rate > 0:
            self.tok_s = float(rate)

    def observe(self, stats: RequestStats) -> None:
        """Take the rate of a request the server timed; long enough prompts only."""
        if stats.source != "server" or stats.prompt_n < MIN_MEASURED_TOKENS:
            return
        if stats.prompt_tok_s <= 0:
            return
        rate = stats.prompt_tok_s
        self.tok_s = rate if self.tok_s is None else self.tok_s + _WEIGHT * (rate - self.tok_s)
        data: dict[str, Any] = read_json_object(self.path) or {}
        data[self.key] = {"tok_s": round(self.tok_s, 2)}
        try:
            write_json(self.path, data)
        except OSError:  # a full or read-only data dir: the rate still holds for this session
            pass

    def seconds(self, tokens: int) -> float | None:
        """Seconds to prefill ``tokens`` with nothing cached; None while the rate is unknown."""
        return tokens / self.tok_s if self.tok_s else None


def seconds_text(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def what_it_is(message: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    """A message as a notice names it."""
    content = message.get("content")
    if message.get("role") == "tool":
        name = next(
            (
                call.get("function", {}).get("name", "tool")
                for earlier in reversed(messages)
                for call in earlier.get("tool_calls") or []
                if call.get("id") == message.get("tool_call_id")
            ),
            "tool",
        )
        return f"the {name} result"
    if message.get("role") != "user" or not isinstance(content, str):
        return "a message"
    if MARK in content:
        return "the files attached to your message"
    if content.startswith("/"):  # a skill's turn: its body follows the command line
        return f"the {content.split()[0]} skill's body"
    return "your message"


async def announce_costly(
    new: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    counter: TokenCounter,
    rate: PrefillRate | None,
    limit_s: float,
    emit: EventSink,
) -> None:
    """Say which of the ``new`` messages take longer than ``limit_s`` to prefill cold."""
    if rate is None or rate.tok_s is None or not new:
        return
    count = counter.count_messages
    for note in await asyncio.to_thread(costly_messages, new, messages, count, rate, limit_s):
        emit(Notice(note))


def costly_messages(
    new: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    count: Callable[[list[dict[str, Any]]], int],
    rate: PrefillRate,
    limit_s: float,
) -> list[str]:
    """Notices for the messages in ``new`` that take longer than ``limit_s`` to prefill cold.
    ``count`` gives messages' tokens (``TokenCounter.count_messages``)."""
    notices = []
    for message in new:
        tokens = count([message])
        seconds = rate.seconds(tokens)
        if seconds is not None and seconds > limit_s:
            notices.append(
                f"Sending {what_it_is(message, messages)}: {tokens:,} tokens, about "
                f"{seconds_text(seconds)} to prefill at {rate.tok_s:.0f} tok/s on this machine."
            )
    return notices


def context_parts(
    messages: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    counter: TokenCounter,
    repo_map: str = "",
) -> list[tuple[str, int]]:
    """What the context holds, in tokens (counting may ask the server: not on a UI thread).
    ``repo_map``: the map the system prompt ends with, counted on a line of its own."""
    system = counter.count_messages(messages[:1])
    mapped = [("repository map", counter.count_text(repo_map))] if repo_map else []
    return [
        ("system prompt", system - sum(n for _, n in mapped)),
        *mapped,
        ("tool schemas", counter.count_tools(schemas)),
        ("conversation", counter.count_messages(messages[1:])),
    ]


def context_report(
    parts: list[tuple[str, int]], n_ctx: int | None, rate: PrefillRate | None
) -> list[str]:
    """/context: each part's tokens beside the seconds it takes to prefill cold."""

    def cost(tokens: int) -> str:
        seconds = rate.seconds(tokens) if rate is not None else None
        return f"{tokens:,} tokens" + (f", {seconds_text(seconds)} cold" if seconds else "")

    total = sum(tokens for _, tokens in parts)
    of = f" of {n_ctx:,} ({total / n_ctx:.0%})" if n_ctx else ""
    lines = [f"Context: {cost(total)}{of}", *(f"  {name}: {cost(n)}" for name, n in parts), ""]
    if rate is not None and rate.tok_s:
        lines.append(f"Prefill: {rate.tok_s:.0f} tok/s, measured on this machine ({rate.key}).")
    else:
        lines.append(
            f"Prefill rate not measured yet: the server's timings of a request with at least "
            f"{MIN_MEASURED_TOKENS} new prompt tokens set it."
        )
    lines.append("Cold: nothing cached. A turn pays only for what follows the cached prefix.")
    return lines

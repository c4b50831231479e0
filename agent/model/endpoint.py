"""The model behind the agent: an OpenAI-compatible chat endpoint, streamed as typed chunks.

``OpenAIChatModel`` talks to llama-server (or any OpenAI-compatible endpoint) through the
``openai`` SDK. It yields text, reasoning and tool-call fragments as they arrive and ends every
stream with a ``StreamEnd`` carrying the request's ``RequestStats``: the server's own ``timings``
when it sends them, client-side measurements otherwise. Errors become one-line ``ModelError``s;
a prompt larger than the context becomes ``ContextOverflow`` so the loop can compact.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

import httpx2  # the openai SDK's HTTP transport: its errors reach us mid-stream unwrapped
import openai

from agent.events import RequestStats
from agent.model.braking import after_request, before_request
from agent.model.stats import UNUSABLE_STATS, StreamClock, turn_stats, with_drafted_steps
from server.brake import Brake
from server.client import get_metrics, openai_base_url
from server.errors import ServerError

METRICS_MISSES = 3  # /metrics failures in a row before a server is taken to keep none


class ModelError(Exception):
    """The model endpoint failed; the message is one line, fit for the user."""


class ContextOverflow(ModelError):
    """The request did not fit the server's context window."""

    def __init__(self, message: str, n_prompt_tokens: int | None, n_ctx: int | None) -> None:
        super().__init__(message)
        self.n_prompt_tokens = n_prompt_tokens
        self.n_ctx = n_ctx


@dataclass(frozen=True)
class TextPiece:
    text: str


@dataclass(frozen=True)
class ReasoningPiece:
    text: str


@dataclass(frozen=True)
class CallPiece:
    """One fragment of a streamed tool call; fragments with the same index form one call."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(frozen=True)
class StreamEnd:
    finish_reason: str | None
    stats: RequestStats


ModelChunk = TextPiece | ReasoningPiece | CallPiece | StreamEnd


@dataclass(frozen=True)
class ReplyFormat:
    """The shape a reply must take: free (text and native tool calls) when ``schema`` is None,
    else one JSON object that follows ``schema`` (the server turns it into a grammar)."""

    schema: dict[str, Any] | None = None
    name: str = "reply"  # the schema's name in the request
    max_tokens: int | None = None  # a cap below the endpoint's, for a reply of known size

    @property
    def free(self) -> bool:
        return self.schema is None


FREE = ReplyFormat()


class ChatModel(Protocol):
    def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        reply_format: ReplyFormat = FREE,
    ) -> AsyncIterator[ModelChunk]:
        """One model request. ``tools`` go to the chat template, which describes them; with a
        schema in ``reply_format`` the reply is one JSON object instead of native calls."""
        ...


def _error(body: object, fallback: str) -> ModelError:
    """llama-server's ``{"error": {"code", "message", "type"}}`` as a typed one-line error."""
    err = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return ModelError(" ".join(fallback.split()))
    message = " ".join(str(err.get("message") or fallback).split())
    if err.get("type") == "exceed_context_size_error":
        n_prompt, n_ctx = err.get("n_prompt_tokens"), err.get("n_ctx")
        return ContextOverflow(
            message,
            n_prompt if isinstance(n_prompt, int) else None,
            n_ctx if isinstance(n_ctx, int) else None,
        )
    code = err.get("code")
    return ModelError(
        f"model server error {code}: {message}" if code else f"model server error: {message}"
    )


class OpenAIChatModel:
    """A streaming chat model behind an OpenAI-compatible endpoint (llama-server)."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        model: str | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        max_tokens: int = 4096,
        stall_s: float = 3600.0,
        brake: Brake | None = None,
    ) -> None:
        """``stall_s``: the longest wait for the next byte (a prefill sends none) before the
        request fails as stalled. ``brake``: a llama-server that drafts gets one, so requests go
        with drafting off where it loses (server.brake)."""
        self.base_url = openai_base_url(base_url)
        # Local servers ignore the key, but the SDK insists on one.
        self._client = openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=api_key or "none",
            max_retries=0,
            timeout=openai.Timeout(3600, read=stall_s),
        )
        self._model = model or "local"
        self._sampling: dict[str, Any] = {
            k: v for k, v in (("temperature", temperature), ("top_p", top_p)) if v is not None
        }
        self._extra: dict[str, Any] = {"top_k": top_k} if top_k is not None else {}
        self._max_tokens = max_tokens
        self._api_key = api_key
        self._brake = brake
        # The server's /metrics counters after the last request; None once the server has
        # shown it keeps none (not llama-server, or started without --metrics).
        self._counters: dict[str, float] | None = {}  # {}: to be read before the next request
        self._metrics_misses = 0

    async def _read_counters(self) -> dict[str, float] | None:
        """The server's /metrics now, or None. One miss (a server busy past the 2 s) costs
        that request's figure: the counters are read afresh before the next one. After
        ``METRICS_MISSES`` in a row the server is taken to keep none, and never asked again."""
        if self._counters is None:
            return None
        try:
            counters = await asyncio.to_thread(get_metrics, self.base_url, self._api_key, 2.0)
        except ServerError:
            self._metrics_misses += 1
            self._counters = None if self._metrics_misses >= METRICS_MISSES else {}
            return None
        self._metrics_misses = 0
        return counters

    def _request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], reply_format: ReplyFormat
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": min(self._max_tokens, reply_format.max_tokens or self._max_tokens),
            **self._sampling,
        }
        if tools:
            request["tools"] = tools
        if reply_format.schema is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": reply_format.name, "schema": reply_format.schema},
            }
        if self._extra:
            request["extra_body"] = self._extra
        return request

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        reply_format: ReplyFormat = FREE,
    ) -> AsyncIterator[ModelChunk]:
        clock = StreamClock()
        finish: str | None = None
        timings: dict[str, Any] | None = None
        usage: dict[str, Any] | None = None
        request = self._request(messages, tools, reply_format)
        brake, probed = self._brake, None
        if brake is not None:
            probed = await before_request(brake, request, self.base_url, self._api_key)
        if self._counters == {}:  # counters to measure this request against
            self._counters = await self._read_counters() or self._counters
        try:
            # The chunks are read as plain JSON: the SDK's parsed stream builds a pydantic object
            # per token, which cost more than all the agent's other per-token work together and
            # fell behind a 2,000 tok/s stream (benchmarks/agent_overhead.py --paced).
            async with self._client.chat.completions.with_streaming_response.create(
                **request
            ) as response:
                async for data in _sse_objects(response.iter_lines()):
                    # Fields of the wrong shape (a server bug, a proxy) are ignored, not fatal.
                    timings = _dict(data.get("timings")) or timings
                    usage = _dict(data.get("usage")) or usage
                    for choice in _dicts(data.get("choices")):
                        finish = choice.get("finish_reason") or finish
                        for piece in _pieces(_dict(choice.get("delta"))):
                            clock.tick()
                            yield piece
        except openai.APIConnectionError as e:
            raise ModelError(f"cannot reach the model server at {self.base_url}: {e}") from None
        except openai.APIError as e:
            # HTTP errors: the SDK hands over the inner error object as the body.
            raise _error(e.body, e.message) from None
        except httpx2.TransportError as e:  # cut mid-stream, or no byte for stall_s
            what = "stalled" if isinstance(e, httpx2.TimeoutException) else "was cut"
            raise ModelError(f"the model server's reply {what}: {type(e).__name__}") from None
        constrained = not reply_format.free
        try:
            stats = turn_stats(timings, usage, clock, constrained=constrained)
        except UNUSABLE_STATS:  # odd values in timings or usage: measure instead
            stats = turn_stats(None, None, clock, constrained=constrained)
        if stats.source == "server" and self._counters:
            before, after = self._counters, await self._read_counters()
            if after is not None:
                stats = with_drafted_steps(stats, before, after)
                self._counters = after
        if brake is not None and stats.source == "server":
            stats = after_request(brake, stats, request, probed)
        yield StreamEnd(finish, stats)


async def _sse_objects(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any]]:
    """The JSON objects of an OpenAI-style event stream up to ``[DONE]``. An error sent
    mid-stream as ``data: {"error": ...}`` raises as a one-line ``ModelError``."""
    async for line in lines:
        if not line.startswith("data:"):
            continue  # blank separators, comments, event names
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        try:
            data = json.loads(payload)
        except ValueError:
            raise ModelError(f"the model server sent a bad event: {payload[:80]}") from None
        if isinstance(data, dict) and data.get("error"):
            raise _error(data, str(data["error"]))
        if isinstance(data, dict):
            yield data


def _pieces(delta: dict[str, Any]) -> list[ModelChunk]:
    pieces: list[ModelChunk] = []
    if isinstance(delta.get("reasoning_content"), str) and delta["reasoning_content"]:
        pieces.append(ReasoningPiece(delta["reasoning_content"]))
    if isinstance(delta.get("content"), str) and delta["content"]:
        pieces.append(TextPiece(delta["content"]))
    for call in _dicts(delta.get("tool_calls")):
        function = _dict(call.get("function"))
        index, name, arguments = call.get("index"), function.get("name"), function.get("arguments")
        pieces.append(
            CallPiece(
                index=index if isinstance(index, int) else 0,
                id=call.get("id") if isinstance(call.get("id"), str) else None,
                name=name if isinstance(name, str) else None,
                arguments=arguments if isinstance(arguments, str) else "",
            )
        )
    return pieces


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []

"""Compaction on a real llama-server keeps the cached prefix: the summary request reads in only
the question after the conversation the server already holds, and the request after the
compaction reuses the unchanged system message."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent.context.prompt import SUMMARY_PREFIX
from agent.events import RequestStats
from agent.loop.compaction import shorter_history
from agent.model.endpoint import FREE, ModelChunk, OpenAIChatModel, ReplyFormat, StreamEnd

pytestmark = pytest.mark.real_server
SYSTEM = {"role": "system", "content": "You are a careful assistant. " * 20}


class Recorded:
    """A real model whose requests' server figures are kept."""

    def __init__(self, url: str) -> None:
        self.model = OpenAIChatModel(url, temperature=0.0, max_tokens=24)
        self.stats: list[RequestStats] = []

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        reply_format: ReplyFormat = FREE,
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in self.model.stream(messages, tools, reply_format=reply_format):
            if isinstance(chunk, StreamEnd):
                self.stats.append(chunk.stats)
            yield chunk


async def _ask(model: Recorded, messages: list[dict[str, Any]]) -> None:
    async for _ in model.stream(messages, []):
        pass


async def test_the_summary_request_and_the_next_one_reuse_the_cached_prefix(
    smol_server: str,
) -> None:
    history: list[dict[str, Any]] = [SYSTEM]
    for i in range(5):
        history.append({"role": "user", "content": f"Note {i}: the number {i} is " + "odd " * 30})
        history.append({"role": "assistant", "content": f"Noted {i}."})
    history.append({"role": "user", "content": "What was note 2?"})
    model = Recorded(smol_server)
    await _ask(model, history)  # the conversation's last request: the slot now holds it
    shorter = await shorter_history(history, model, [])
    assert shorter is not None and shorter[0] == SYSTEM
    assert shorter[1]["content"].startswith(SUMMARY_PREFIX)
    summary = model.stats[1]
    # Only the question after the cached conversation is new (a transcript was all new).
    assert summary.cache_n > 3 * summary.prompt_n, summary
    await _ask(model, shorter)
    after = model.stats[-1]
    assert after.cache_n >= 100  # the unchanged system message, at least, came from the cache

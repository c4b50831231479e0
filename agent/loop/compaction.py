"""Shortening the history when it nears the context size.

Old turns are summarized by the model into one message, recent ones kept verbatim
(``agent.context.prompt.compact``); when there is nothing old to summarize (one long tool
round), long tool results are cut instead.
"""

from __future__ import annotations

from typing import Any

from agent.context.prompt import compact, summary_request
from agent.model.endpoint import FREE, ChatModel
from agent.model.reply import Reply, collect
from tools.output import cap_text

TRIMMED_RESULT_CHARS = 2_000  # tool results are cut to this when compaction has nothing else


async def shorter_history(
    messages: list[dict[str, Any]], model: ChatModel
) -> list[dict[str, Any]] | None:
    """The history shortened, or None when it is one short exchange already."""

    async def summarize(old: list[dict[str, Any]]) -> str:
        reply = Reply()
        stream = model.stream(summary_request(old), [])
        await collect(stream, lambda _event: None, reply, reply_format=FREE, tool_names=())
        return reply.text

    compacted = await compact(messages, summarize)
    if len(compacted) == len(messages):
        compacted = [_trimmed(m) for m in messages]
    return None if compacted == messages else compacted


def _trimmed(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("role") != "tool" or len(str(message.get("content"))) <= TRIMMED_RESULT_CHARS:
        return message
    return {**message, "content": cap_text(str(message["content"]), TRIMMED_RESULT_CHARS)}

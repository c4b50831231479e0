"""Shortening the history when it nears the context size.

Old turns are summarized by the model into one message, recent ones kept verbatim
(``agent.context.prompt.compact``); when there is nothing old to summarize (one long tool
round), long tool results are cut instead.

The prefix stays the server's: the summary is asked for after the conversation as it was sent
(same system message, same tools, the old messages unchanged), so that request reuses the cached
prompt and reads in only the question; the compacted history keeps the system message and puts
the summary after it. The summary used to be asked of a transcript under a summarizer's own
system prompt: read in whole, and on a server without a host prompt cache (the GPU profiles'
``--cache-ram 0``) it evicted the conversation, so the request after the compaction read in even
the unchanged system prompt and tools again (0.2% reuse; now 69%, BENCHMARKS.md).
"""

from __future__ import annotations

from typing import Any

from agent.context.prompt import SUMMARY_INSTRUCTION, compact, summary_request
from agent.model.endpoint import FREE, ChatModel, ContextOverflow
from agent.model.reply import Reply, collect
from tools.output import cap_text

TRIMMED_RESULT_CHARS = 2_000  # tool results are cut to this when compaction has nothing else
Message = dict[str, Any]


async def shorter_history(
    messages: list[Message], model: ChatModel, tools: list[dict[str, Any]] | None = None
) -> list[Message] | None:
    """The history shortened, or None when it is one short exchange already. ``tools``: those
    the conversation's requests send, so the summary request shares their prefix."""
    head = messages[:1] if messages and messages[0].get("role") == "system" else []

    async def ask(request: list[Message], offered: list[dict[str, Any]]) -> str:
        reply = Reply()
        stream = model.stream(request, offered)
        await collect(stream, lambda _event: None, reply, reply_format=FREE, tool_names=())
        return reply.text.strip()

    async def summarize(old: list[Message]) -> str:
        try:
            text = await ask(in_place_request(head, old), tools or [])
        except ContextOverflow:  # the old part alone does not fit: a capped transcript does
            text = ""
        return text or await ask(summary_request(old), [])  # empty: it called a tool instead

    compacted = await compact(messages, summarize)
    if len(compacted) == len(messages):
        compacted = [_trimmed(m) for m in messages]
    return None if compacted == messages else compacted


def in_place_request(head: list[Message], old: list[Message]) -> list[Message]:
    """The conversation's start as it was sent, then the request for a summary (folded into a
    last user message: some chat templates reject two in a row)."""
    last = old[-1] if old else {}
    if last.get("role") == "user" and isinstance(last.get("content"), str):
        asked = {**last, "content": f"{last['content']}\n\n{SUMMARY_INSTRUCTION}"}
        return [*head, *old[:-1], asked]
    return [*head, *old, {"role": "user", "content": SUMMARY_INSTRUCTION}]


def _trimmed(message: Message) -> Message:
    if message.get("role") != "tool" or len(str(message.get("content"))) <= TRIMMED_RESULT_CHARS:
        return message
    return {**message, "content": cap_text(str(message["content"]), TRIMMED_RESULT_CHARS)}

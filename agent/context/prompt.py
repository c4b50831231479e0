"""What goes into the prompt: a short stable system prompt, token counts, and compaction.

The server's prompt cache reuses the longest unchanged prefix, so everything here is byte-stable:
no dates, counters or random ids, and compaction cuts at one boundary and leaves the rest verbatim.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from agent.sessions.store import message_text
from server.client import tokenize
from server.errors import ServerError
from skills.disclose import skill_contents
from tools.output import cap_text

Message = dict[str, Any]

COMPACT_AT = 0.8  # share of the context window in use that triggers compaction
SUMMARY_PREFIX = "Summary of earlier conversation: "
SUMMARY_INSTRUCTION = (
    "Summarize this conversation for your own later use, in short bullet points: the user's "
    "requests, what was done (files changed, commands run, their results), what is left to do, "
    "and any fact needed to continue."
)
_CHARS_PER_TOKEN = 3.5  # offline estimate when no tokenizer is at hand
_PER_MESSAGE = 4  # chat template tokens around each message (role markers, separators)
# An image part's tokens, counted before the server reads it: the most Gemma 4's projector
# gives one image in llama.cpp (1,120), which a screenshot reaches; over, not under, the truth.
IMAGE_TOKENS = 1120
_CACHE_LIMIT = 10_000
# tiktoken fetches this file from the internet on first use; beecode only uses it when cached.
_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
_CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


RULES = "\n".join(
    [
        "You are beecode, a coding agent working in the user's project, the current folder.",
        "Act through tool calls; write prose only to report results or ask a question.",
        "Read a file before you edit it.",
        "Check your work: run, test or compile what you changed.",
        "When the task is done, say in a sentence or two what you did.",
    ]
)


def system_prompt(memory: str, skills_catalogue: str) -> str:
    """The rules, then what each project adds. No path, date or id: the rules (and a policy's
    guide after them, ``with_guide``) and the tools are a prefix every project shares, so a new
    session or a new project on a running server reads only what is its own."""
    text = RULES
    if memory.strip():
        text += "\n\n# Project instructions\n" + memory.strip()
    if skills_catalogue.strip():
        text += "\n\n# Skills\n" + skills_catalogue.strip()
    return text


def with_guide(prompt: str, guide: str) -> str:
    """``prompt`` with ``guide`` right after the rules, before what the project adds."""
    if not prompt.startswith(RULES):
        return prompt + guide
    return RULES + guide + prompt[len(RULES) :]


@functools.cache
def _cached_cl100k() -> Any | None:
    """tiktoken's cl100k_base when its file is in tiktoken's cache already, else None."""
    env = os.environ
    cache = env.get("TIKTOKEN_CACHE_DIR", env.get("DATA_GYM_CACHE_DIR"))
    if cache is None:
        cache = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache:  # "" disables tiktoken's cache: it would download every time
        return None
    path = Path(cache) / hashlib.sha1(_CL100K_URL.encode()).hexdigest()
    try:
        # A file that fails tiktoken's hash check would make it download again: check first.
        if hashlib.sha256(path.read_bytes()).hexdigest() != _CL100K_SHA256:
            return None
        import tiktoken

        return tiktoken.get_encoding("cl100k_base")
    except Exception:
        return None


class TokenCounter:
    """Token counts: exact from the server's /tokenize, else tiktoken (if cached) or chars/3.5.

    Counts are cached per text, so counting a growing history costs one request per new message.
    After a failed request the counter stays offline (``exact`` turns False) rather than wait on
    a dead server for every message.
    """

    def __init__(
        self, base_url: str | None, *, api_key: str | None = None, timeout_s: float = 5.0
    ) -> None:
        """base_url: the server's, with or without /v1; None counts offline only."""
        self._url = base_url
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._client = httpx.Client() if base_url else None  # one connection for every count
        self._counts: dict[str, int] = {}
        self.exact = self._client is not None

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        count = self._counts.get(text)
        if count is None:
            count = self._server_count(text) if self.exact else None
            if count is None:
                count = self._estimate(text)
            if len(self._counts) >= _CACHE_LIMIT:
                self._counts.clear()
            self._counts[text] = count
        return count

    def count_messages(self, messages: list[Message]) -> int:
        return sum(
            _PER_MESSAGE + sum(map(self.count_text, _texts(m))) + IMAGE_TOKENS * _images(m)
            for m in messages
        )

    def count_tools(self, schemas: list[dict[str, Any]]) -> int:
        return self.count_text(json.dumps(schemas, separators=(",", ":")))

    def count_request(self, messages: list[Message], schemas: list[dict[str, Any]]) -> int:
        return self.count_messages(messages) + self.count_tools(schemas)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def _server_count(self, text: str) -> int | None:
        assert self._url is not None
        try:
            tokens = tokenize(
                self._url,
                text,
                self._api_key,
                parse_special=False,
                timeout_s=self._timeout_s,
                http=self._client,
            )
        except ServerError:
            self.exact = False
            return None
        return len(tokens)

    @staticmethod
    def _estimate(text: str) -> int:
        encoding = _cached_cl100k()
        if encoding is not None:
            return len(encoding.encode(text, disallowed_special=()))
        return math.ceil(len(text) / _CHARS_PER_TOKEN)


def _texts(message: Message) -> list[str]:
    texts = [str(message.get("role", "")), message_text(message)]
    texts.append(str(message.get("reasoning_content") or ""))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {} if isinstance(call, dict) else {}
        texts += [str(function.get("name", "")), str(function.get("arguments", ""))]
    return texts


def _images(message: Message) -> int:
    content = message.get("content")
    if not isinstance(content, list):
        return 0
    return sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")


def should_compact(used_tokens: int, n_ctx: int) -> bool:
    return n_ctx > 0 and used_tokens >= COMPACT_AT * n_ctx


async def compact(
    messages: list[Message],
    summarize: Callable[[list[Message]], Awaitable[str]],
    keep_recent: int = 6,
) -> list[Message]:
    """The system message, one summary of the middle, and the last keep_recent messages verbatim;
    the bodies of skills loaded in the middle go on after the summary.

    The boundary moves back so no tool result is parted from the call that asked for it; when that
    leaves nothing to summarize (one long tool round), the messages come back unchanged and the
    caller has to cap tool results instead (``tools.output.cap_text``).
    """
    head = messages[:1] if messages and messages[0].get("role") == "system" else []
    body = messages[len(head) :]
    boundary = max(len(body) - keep_recent, 0)
    while 0 < boundary < len(body) and body[boundary].get("role") == "tool":
        boundary -= 1
    if boundary <= 0:
        return list(messages)
    old, recent = body[:boundary], body[boundary:]
    note = SUMMARY_PREFIX + (await summarize(old)).strip()
    # Loaded skills are instructions still in force: their bodies go on verbatim.
    kept = {block: None for m in old for block in skill_contents(message_text(m))}
    if kept:
        note += "\n\nSkills loaded earlier, still to follow:\n" + "\n".join(kept)
    first = recent[0] if recent else {}
    if first.get("role") == "user" and isinstance(first.get("content"), str):
        # Some chat templates reject two user messages in a row: fold the summary into the next.
        return [*head, {**first, "content": f"{note}\n\n{first['content']}"}, *recent[1:]]
    return [*head, {"role": "user", "content": note}, *recent]


def summary_request(old: list[Message], max_chars: int = 12_000) -> list[Message]:
    """Messages asking the model to summarize ``old``, as a transcript of at most max_chars."""
    lines = []
    for message in old:
        role = str(message.get("role", "?"))
        text = message_text(message)
        if role == "tool":
            text = cap_text(text, 1_000)
        if text:
            lines.append(f"{role}: {text}")
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            lines.append(f"{role} called {function.get('name')}({function.get('arguments')})")
    transcript = cap_text("\n".join(lines), max_chars)
    return [
        {"role": "system", "content": SUMMARY_INSTRUCTION},
        {"role": "user", "content": transcript},
    ]

"""System prompt, token counting (offline and against a local /tokenize server) and compaction."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent.context import prompt as context
from agent.context.prompt import (
    SUMMARY_PREFIX,
    TokenCounter,
    compact,
    should_compact,
    summary_request,
    system_prompt,
    with_guide,
)


def test_system_prompt_is_short_stable_and_complete() -> None:
    bare = system_prompt("", "")
    assert len(bare) / 3.5 < 200  # tokens, by the offline estimate
    assert bare == system_prompt("", "")  # byte-stable: no dates, counters, ids
    full = system_prompt("Run make test.", "- commit: make a commit")
    assert full.startswith(bare)
    assert "Run make test." in full and "- commit: make a commit" in full


def test_a_guide_goes_before_what_the_project_adds() -> None:
    """Two projects share the rules, the guide and (after the system message) the tools as one
    cached prefix: nothing of a project's comes before them."""
    one, other = system_prompt("Run make test.", ""), system_prompt("", "- commit: commit")
    guided = [with_guide(p, "\n\n# Reply format\nJSON.") for p in (one, other)]
    shared = len(os.path.commonprefix(guided))
    assert guided[0][:shared].endswith("# Reply format\nJSON.\n\n# ")
    assert guided[0].endswith("Run make test.") and guided[1].endswith("- commit: commit")
    assert with_guide("Some other prompt.", "\nGuide.") == "Some other prompt.\nGuide."


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty tiktoken cache: the encoding file is absent and may not be downloaded."""
    cache = tmp_path / "tiktoken"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    context._cached_cl100k.cache_clear()
    yield cache
    context._cached_cl100k.cache_clear()


def test_offline_estimate_without_tiktoken_file(offline: Path) -> None:
    counter = TokenCounter(None)
    assert not counter.exact
    assert counter.count_text("x" * 35) == 10
    assert counter.count_text("") == 0
    messages = [{"role": "user", "content": "x" * 35}]
    assert counter.count_messages(messages) == 4 + 2 + 10  # template overhead + "user" + content


def test_corrupt_tiktoken_file_is_not_used(offline: Path) -> None:
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    (offline / hashlib.sha1(url.encode()).hexdigest()).write_bytes(b"not the encoding")
    assert context._cached_cl100k() is None
    assert TokenCounter(None).count_text("x" * 7) == 2


def test_counts_tool_calls_and_reasoning(offline: Path) -> None:
    counter = TokenCounter(None)
    bare = {"role": "assistant", "content": ""}
    rich = {
        **bare,
        "reasoning_content": "r" * 35,
        "tool_calls": [{"id": "c", "function": {"name": "bash", "arguments": "a" * 70}}],
    }
    assert counter.count_messages([rich]) - counter.count_messages([bare]) == 10 + 2 + 20


def test_an_image_counts_as_what_the_server_may_read_for_it_not_its_bytes(offline: Path) -> None:
    counter = TokenCounter(None)
    words = {"role": "user", "content": [{"type": "text", "text": "x" * 35}]}
    url = "data:image/png;base64," + "A" * 70_000
    image = {"type": "image_url", "image_url": {"url": url}}
    with_images = {"role": "user", "content": [*words["content"], image, image]}
    assert counter.count_messages([with_images]) - counter.count_messages([words]) == 2 * (
        context.IMAGE_TOKENS
    )


class TokenizeHandler(BaseHTTPRequestHandler):
    """/tokenize like llama-server's, one token per space-separated word."""

    bodies: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        auth = {"auth": self.headers["Authorization"]} if self.headers["Authorization"] else {}
        type(self).bodies.append({"path": self.path, **auth, **body})
        if self.path != "/tokenize":
            self.send_error(404)
            return
        reply = json.dumps({"tokens": list(range(len(body["content"].split())))}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def tokenize_url() -> Iterator[str]:
    TokenizeHandler.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), TokenizeHandler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


def test_exact_counts_from_tokenize(tokenize_url: str, offline: Path) -> None:
    counter = TokenCounter(tokenize_url + "/v1/")
    messages = [
        {"role": "user", "content": "three little words"},
        {"role": "user", "content": "three little words"},
    ]
    assert counter.count_messages(messages) == 2 * (4 + 1 + 3)
    assert counter.exact
    # One request per distinct text: "user" and the content, then the cache answers.
    assert TokenizeHandler.bodies == [
        {"path": "/tokenize", "content": "user", "add_special": False, "parse_special": False},
        {
            "path": "/tokenize",
            "content": "three little words",
            "add_special": False,
            "parse_special": False,
        },
    ]
    assert counter.count_tools([{"type": "function"}]) == 1
    counter.close()
    with_key = TokenCounter(tokenize_url, api_key="sk-local")
    assert with_key.count_text("a b") == 2
    assert TokenizeHandler.bodies[-1]["auth"] == "Bearer sk-local"
    with_key.close()


def test_unreachable_server_falls_back_once(tokenize_url: str, offline: Path) -> None:
    counter = TokenCounter(tokenize_url + "/nothing-here")
    assert counter.count_text("x" * 35) == 10
    assert not counter.exact
    assert counter.count_text("y" * 35) == 10
    assert len(TokenizeHandler.bodies) == 1  # no second try against a failing server


def test_should_compact() -> None:
    assert not should_compact(799, 1000)
    assert should_compact(800, 1000)
    assert not should_compact(10, 0)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str, *calls: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": c, "function": {"name": "read", "arguments": "{}"}} for c in calls
        ]
    return message


def tool(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": f"result {call_id}"}


SYSTEM = {"role": "system", "content": "sys"}


async def test_compact_keeps_system_and_recent_and_summarizes_the_middle() -> None:
    seen: list[list[dict[str, Any]]] = []

    async def summarize(old: list[dict[str, Any]]) -> str:
        seen.append(old)
        return " counted to two \n"

    messages = [
        SYSTEM,
        user("1"),
        assistant("a1"),
        user("2"),
        assistant("a2"),
        user("3"),
        assistant("a3"),
    ]
    compacted = await compact(messages, summarize, keep_recent=2)
    assert seen == [messages[1:5]]
    # The kept part starts with a user message: the summary is folded into it (no user, user).
    assert compacted == [SYSTEM, user(SUMMARY_PREFIX + "counted to two\n\n3"), assistant("a3")]


async def test_compact_never_parts_a_call_from_its_results() -> None:
    async def summarize(old: list[dict[str, Any]]) -> str:
        return "earlier work"

    messages = [
        SYSTEM,
        user("go"),
        assistant("", "a", "b"),
        tool("a"),
        tool("b"),
        assistant("done"),
    ]
    compacted = await compact(messages, summarize, keep_recent=2)
    assert compacted == [SYSTEM, user(SUMMARY_PREFIX + "earlier work"), *messages[2:]]


async def test_compact_with_nothing_to_summarize_returns_messages_unchanged() -> None:
    async def summarize(old: list[dict[str, Any]]) -> str:
        raise AssertionError("nothing to summarize")

    one_round = [SYSTEM, assistant("", "a"), tool("a"), tool("a")]
    assert await compact(one_round, summarize, keep_recent=2) == one_round
    assert await compact([SYSTEM, user("hi")], summarize) == [SYSTEM, user("hi")]


def test_summary_request_renders_a_capped_transcript() -> None:
    old = [
        user("fix it"),
        assistant("", "c1"),
        {"role": "tool", "tool_call_id": "c1", "content": "z" * 5000},
    ]
    request = summary_request(old, max_chars=2000)
    assert request[0]["role"] == "system"
    transcript = request[1]["content"]
    assert transcript.startswith("user: fix it\nassistant called read({})\ntool: zzz")
    assert len(transcript) <= 2000 and "chars omitted" in transcript

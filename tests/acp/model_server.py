"""A scripted OpenAI-compatible chat server for driving a real ``beecode acp`` process: each
request takes the next scripted reply, in order, and every request body is recorded. A reply
that ends in ``HOLD`` streams its chunks, then keeps the response open until the client goes
away (a cancelled turn closes it)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOLD = "hold"
PING_S = 0.05  # a held response writes an SSE comment this often, to notice a closed client


@dataclass
class Model:
    replies: list[list[dict[str, Any] | str]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)


def text(words: str, finish: str = "stop") -> list[dict[str, Any] | str]:
    """A plain answer; ``finish="length"``: cut at the reply's token limit."""
    return [_chunk({"content": words}), _chunk({}, finish)]


def call(name: str, arguments: dict[str, Any], call_id: str) -> list[dict[str, Any] | str]:
    piece = {"index": 0, "id": call_id, "type": "function"}
    function = {"name": name, "arguments": json.dumps(arguments)}
    return [_chunk({"tool_calls": [{**piece, "function": function}]}), _chunk({}, "tool_calls")]


def held(words: str) -> list[dict[str, Any] | str]:
    return [_chunk({"content": words}), HOLD]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [choice],
    }


def _handler(model: Model) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self.send_response(404)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            model.requests.append(body)
            reply = model.replies.pop(0) if model.replies else text("(no reply scripted)")
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for item in reply:
                    if item == HOLD:
                        while not model.stop.wait(PING_S):
                            self.wfile.write(b": ping\n\n")
                            self.wfile.flush()
                        return
                    self.wfile.write(f"data: {json.dumps(item)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                return  # the client went away: a cancelled turn

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    return Handler


@contextmanager
def model_server(model: Model) -> Iterator[str]:
    """The server's /v1 URL while the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        model.stop.set()
        server.shutdown()
        server.server_close()

"""A scripted HTTP server replaying llama-server's wire format (the shapes in llama-server.md
§2.3, §2.8 and cpu-rig.md §5), for the endpoint tests: ``Script`` holds what it sends and
records every request body it got."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Script:
    status = 200
    body: list[dict[str, Any] | str] = []  # SSE data items; a str is sent verbatim
    requests: list[dict[str, Any]] = []
    metrics: list[str | None] = []  # each GET /metrics takes the next: its text, None a 503


def _send(handler: BaseHTTPRequestHandler, status: int, payload: bytes, kind: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path != "/metrics" or not Script.metrics:
            _send(self, 404, b"{}", "application/json")
        elif (text := Script.metrics.pop(0)) is None:
            _send(self, 503, b'{"error": "busy"}', "application/json")
        else:
            _send(self, 200, text.encode(), "text/plain")

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers["Content-Length"])
        Script.requests.append(json.loads(self.rfile.read(length)))
        if Script.status != 200:
            payload = json.dumps(Script.body[0]).encode()
            self.send_response(Script.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for item in Script.body:
            data = item if isinstance(item, str) else json.dumps(item)
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@contextmanager
def scripted_endpoint() -> Iterator[str]:
    """The server's base URL, for as long as the block runs; the script starts empty."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    Script.status, Script.body, Script.requests, Script.metrics = 200, [], [], []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": choices,
        **extra,
    }

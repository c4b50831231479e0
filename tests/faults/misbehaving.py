"""A tiny OpenAI-style server on 127.0.0.1 that misbehaves on purpose, one way per path prefix:
the stream is cut, stalls, carries garbage, an error event, or odd shapes."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    data = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(data).encode() + b"\n\n"


HELLO = chunk({"content": "Hel"}) + chunk({"content": "lo"})
DONE = chunk({}, "stop") + b"data: [DONE]\n\n"
# Each fault: the bytes sent, then what happens (cut: close the socket mid-body; stall: sleep).
FAULTS: dict[str, tuple[bytes, str]] = {
    "fine": (HELLO + DONE, "end"),
    "cut": (HELLO, "cut"),
    "stall": (HELLO, "stall"),
    "garbage": (HELLO + b"data: {not json\n\n" + DONE, "end"),
    "binary": (HELLO + b"data: \xff\xfe\x00\x01\n\n" + DONE, "end"),
    "error": (HELLO + b'data: {"error": {"message": "out of memory", "code": 500}}\n\n', "end"),
    "odd": (
        b'data: {"choices": "nope"}\n\ndata: {"choices": [{"delta": "x"}]}\n\n'
        b'data: {"choices": [{"delta": {"tool_calls": [{"index": "z"}]}}]}\n\n'
        b'data: [1, 2]\n\ndata: {"timings": "fast", "usage": 7}\n\n' + HELLO + DONE,
        "end",
    ),
    "no-timings": (HELLO + DONE, "end"),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    stall_s = 30.0

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body, then = FAULTS[self.path.strip("/").split("/")[0]]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        if then == "end":
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self.wfile.write(f"{len(body):x}\r\n".encode() + body + b"\r\n")
        self.wfile.flush()
        if then == "stall":
            time.sleep(self.stall_s)
        self.connection.shutdown(socket.SHUT_RDWR)  # cut: no last chunk, no [DONE]


@contextmanager
def misbehaving_server() -> Iterator[str]:
    """The base URL; a fault is chosen by the first path segment (``{url}/cut/v1``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()

"""A stand-in for llama-server's streaming chat endpoint at a set token rate (for agent_overhead).

The CPU machines decode the tiny model at a few tok/s, where no client can fall behind; a GPU
decodes at hundreds. This server streams a fixed coding answer, one word-sized token per SSE
chunk, paced at RATE tok/s (tokens due by the clock go out together, as a fast server's do), and
ends with llama-server's ``timings`` computed the same way from its own send times:
predicted_per_second = (predicted_n - 1) / (last token sent - first token sent). POST
/v1/chat/completions answers, and GET /sent gives the last stream's send times on the
machine's monotonic clock (``time.monotonic``, the one every process here reads), so a client
can judge a turn over the server's own window; everything else is 404. It runs in its own
process, so it never competes with a client for the GIL.

    python benchmarks/_paced_server.py RATE   (prints its base URL, serves until stopped)
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER_WORDS = (
    "Here is the function, with its tests after it:\n\n```python\n"
    + "".join(
        f"def check_{i}(values: dict[str, int]) -> int:\n    return values['k{i}'] + {i}\n"
        for i in range(40)
    )
    + "```\n"
).split(" ")


def chunk(delta: dict[str, Any], **extra: Any) -> bytes:
    body = {
        "object": "chat.completion.chunk",
        "model": "paced",
        "created": 0,
        "id": "paced",
        "choices": [{"index": 0, "delta": delta, "finish_reason": extra.pop("finish", None)}],
        **extra,
    }
    return f"data: {json.dumps(body)}\n\n".encode()


class PacedHandler(BaseHTTPRequestHandler):
    server: PacedServer

    def log_message(self, *args: Any) -> None:  # quiet
        return

    def do_GET(self) -> None:
        if self.path != "/sent":
            self.send_error(404)
            return
        body = json.dumps(self.server.sent).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if self.path != "/v1/chat/completions" or not request.get("stream"):
            self.send_error(404)
            return
        count = min(int(request.get("max_tokens") or 1000), 100_000)
        tokens = [ANSWER_WORDS[i % len(ANSWER_WORDS)] + " " for i in range(count)]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(chunk({"role": "assistant", "content": None}))
        start = time.monotonic()
        first = last = start
        sent = 0
        while sent < count:
            due = min(count, int((time.monotonic() - start) * self.server.rate) + 1)
            self.wfile.write(b"".join(chunk({"content": t}) for t in tokens[sent:due]))
            self.wfile.flush()
            last = time.monotonic()
            first = last if sent == 0 else first
            sent = due
            time.sleep(0.0005)
        window_s = last - first
        self.server.sent = {"first_sent": first, "last_sent": last, "tokens": count}
        timings = {
            "prompt_n": 1,
            "cache_n": 0,
            "prompt_ms": 0.0,
            "prompt_per_second": 0.0,
            "predicted_n": count,
            "predicted_ms": window_s * 1000,
            "predicted_per_second": (count - 1) / window_s if window_s > 0 else 0.0,
        }
        usage = {"prompt_tokens": 1, "completion_tokens": count, "total_tokens": count + 1}
        self.wfile.write(chunk({}, finish="length", timings=timings, usage=usage))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class PacedServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, rate: float) -> None:
        super().__init__(("127.0.0.1", 0), PacedHandler)
        self.rate = rate
        self.sent: dict[str, float] = {}  # the last stream's send times and token count


def serve(rate: float) -> None:
    server = PacedServer(rate)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


@contextlib.contextmanager
def paced(rate: float) -> Iterator[str]:
    """The base URL of a paced server in its own process, stopped at the end."""
    proc = subprocess.Popen(
        [sys.executable, __file__, str(rate)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        if not url.startswith("http://"):
            raise RuntimeError(f"the paced server did not start (exit {proc.poll()})")
        yield url
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    serve(float(sys.argv[1]))

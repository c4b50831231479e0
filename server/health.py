"""The /health probe, on a plain socket: its status line is all it reads.

The supervisor probes while the server loads, on the cores the load needs: importing httpx then
costs ~0.3 s of CPU and http.client ~15 ms. An https server (never one beecode starts) is still
asked through http.client.
"""

from __future__ import annotations

import socket
import time
from urllib.parse import SplitResult, urlsplit

from server.errors import LaunchError
from server.launch.addresses import server_root


def health(base_url: str, timeout_s: float = 2.0) -> int | None:
    """The /health status code (200 ready, 503 loading), or None when nothing answers."""
    url = urlsplit(server_root(base_url))
    if url.scheme == "https":
        return _health_https(url, timeout_s)
    request = f"GET {url.path}/health HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: close\r\n\r\n"
    try:
        address = (url.hostname or "", url.port or 80)
        with socket.create_connection(address, timeout=timeout_s) as connection:
            connection.sendall(request.encode())
            with connection.makefile("rb") as reply:
                status_line = reply.readline(256)  # b"HTTP/1.1 200 OK\r\n"
    except (OSError, ValueError):
        return None
    version, _, rest = status_line.partition(b" ")
    code = rest[:3]
    return int(code) if version.startswith(b"HTTP/") and code.isdigit() else None


def _health_https(url: SplitResult, timeout_s: float) -> int | None:
    import http.client

    try:
        connection = http.client.HTTPSConnection(url.hostname or "", url.port, timeout=timeout_s)
        try:
            connection.request("GET", url.path + "/health")
            return connection.getresponse().status
        finally:
            connection.close()
    except (OSError, ValueError, http.client.HTTPException):
        return None


def wait_healthy(base_url: str, timeout_s: float) -> None:
    """Poll /health until 200; 503 means the model is still loading."""
    deadline = time.monotonic() + timeout_s
    while True:
        status = health(base_url)
        if status == 200:
            return
        if time.monotonic() > deadline:
            state = "still loading" if status == 503 else f"not answering (status {status})"
            raise LaunchError(f"llama-server at {base_url} is {state} after {timeout_s:.0f} s")
        time.sleep(0.1)

"""The /health probe, on http.client rather than httpx.

The supervisor probes while the server loads, and importing httpx then (~0.3 s of CPU) slows the
load it waits for.
"""

from __future__ import annotations

import http.client
import time
from urllib.parse import urlsplit

from server.errors import LaunchError
from server.launch.addresses import server_root


def health(base_url: str, timeout_s: float = 2.0) -> int | None:
    """The /health status code (200 ready, 503 loading), or None when nothing answers."""
    url = urlsplit(server_root(base_url))
    kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    try:
        connection = kind(url.hostname or "", url.port, timeout=timeout_s)
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

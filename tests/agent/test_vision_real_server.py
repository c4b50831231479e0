"""Images through the real CPU llama-server, as a user runs beecode: a profile of `tiny`
(Qwen2.5-Coder 0.5B) with a random-weight gemma4v projector (server.models.random_mmproj) in
profiles.toml. `server up` plans and launches it with --mmproj, /props says the model reads
images, and a headless turn's image reaches the model: the server counts its tokens in the
prompt. With vision = "off" the same profile launches without it and the model gets one line.
The projector's features are noise, so nothing here reads what the model answers."""

from __future__ import annotations

import json
import math
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from agent.sessions.store import Session
from server.client import get_props
from server.launch.addresses import free_port
from server.models.random_mmproj import MIN_IMAGE_TOKENS, write_random_mmproj
from server.process.state import read_record
from tests.agent.headless_run import beecode

pytestmark = [pytest.mark.real_server, pytest.mark.usefixtures("beecode_dirs")]
PROFILE = "tiny-eyes"
LEFT_OUT = "this model does not read images"
# A square image under gemma4v's floor of 70 tokens is scaled up to the next whole grid of tokens
# (tools/mtmd's dyn_size preprocessing): a 32x32 PNG becomes 108x108 pixels, 27x27 patches of 4,
# pooled 3x3 into 9x9 = 81 tokens.
IMAGE_TOKENS = math.ceil(math.sqrt(MIN_IMAGE_TOKENS)) ** 2


def png(side: int) -> bytes:
    """An RGB gradient PNG, written by hand (no imaging library needed)."""
    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 255 // side, y * 255 // side, 128)) for x in range(side))
        for y in range(side)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)  # 8-bit RGB
    image = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + image


@pytest.fixture
def eyes(qwen_path: Path, tmp_path: Path, workspace: Path) -> Path:
    """The projector, the workspace's greedy short replies and its shot.png."""
    (workspace / ".beecode").mkdir()
    (workspace / ".beecode" / "config.toml").write_text("temperature = 0.0\nmax_tokens = 4\n")
    (workspace / "shot.png").write_bytes(png(32))
    return write_random_mmproj(qwen_path, tmp_path / "mmproj.gguf")


def with_profile(tmp_path: Path, projector: Path, vision: str) -> None:
    # One thread: two would spin at every barrier on cores other tests share (seconds a token).
    (tmp_path / "config" / "profiles.toml").write_text(
        f'[{PROFILE}]\nbase = "tiny"\nmmproj = {{path = "{projector}"}}\nvision = "{vision}"\n'
        'extra_args = ["--threads", "1"]\n'
    )


def up(workspace: Path) -> tuple[str, list[str]]:
    """`server up` of the profile: its URL and the argv it launched."""
    port = free_port()
    done = beecode("server", "up", "--profile", PROFILE, "--port", str(port), cwd=workspace)
    assert done.returncode == 0, done.stderr
    record = read_record()
    assert record is not None
    return f"http://127.0.0.1:{port}", [str(a) for a in record["argv"]]


def turn(workspace: Path, task: str) -> dict[str, Any]:
    """One headless model request on the profile's server, as JSON."""
    args = ["-p", task, "--profile", PROFILE, "--max-steps", "1", "--permission-mode", "plan"]
    done = beecode(*args, "--output-format", "json", cwd=workspace)
    assert done.returncode in (0, 3), done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def prompt_tokens(result: dict[str, Any]) -> int:
    """The prompt the server read for the turn's one request: evaluated plus served from cache."""
    [request] = result["turns"]
    assert request["source"] == "server"
    return int(request["prompt_n"]) + int(request["cache_n"])


def test_an_image_reaches_the_model_through_the_projector(
    eyes: Path, tmp_path: Path, workspace: Path
) -> None:
    with_profile(tmp_path, eyes, "on")
    try:
        url, argv = up(workspace)
        assert argv[argv.index("--mmproj") + 1] == str(eyes)
        assert get_props(url).vision is True
        seen = turn(workspace, "What is in @shot.png?")
        assert [(i["name"], i["shown"]) for i in seen["images"]] == [("shot.png", True)]
        unseen = turn(workspace, "What is in shot.png?")  # no mention: no image
        assert unseen["images"] == []
        # The image's tokens are in the server's prompt, besides the few of the text the two
        # differ by ("@", the "[image shot.png]" label, the image's <|image> markers).
        extra = prompt_tokens(seen) - prompt_tokens(unseen)
        assert extra >= IMAGE_TOKENS, (prompt_tokens(seen), prompt_tokens(unseen))
    finally:
        beecode("server", "down", cwd=workspace)


def test_vision_off_launches_without_the_projector_and_the_model_gets_one_line(
    eyes: Path, tmp_path: Path, workspace: Path
) -> None:
    with_profile(tmp_path, eyes, "off")
    try:
        url, argv = up(workspace)
        assert "--mmproj" not in argv
        assert get_props(url).vision is False
        result = turn(workspace, "What is in @shot.png?")
        assert [(i["name"], i["shown"], i["why"]) for i in result["images"]] == [
            ("shot.png", False, LEFT_OUT)
        ]
        [asked, *_] = Session.open(result["session_id"]).messages()
        assert asked["content"] == [
            {"type": "text", "text": "What is in @shot.png?"},
            {"type": "text", "text": f"[image shot.png left out: {LEFT_OUT}]"},
        ]
    finally:
        beecode("server", "down", cwd=workspace)

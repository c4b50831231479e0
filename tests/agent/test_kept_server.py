"""A headless run on the managed server, as a user runs it (real `beecode` subprocesses, a real
tiny llama-server): it ends by saying the server keeps running and how to stop it, the
supervisor shows in ps as what it is, and an unknown --profile is told as unknown (with the
known ones) while another profile's server runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from server.launch.addresses import free_port
from server.process.pids import cmdline
from server.process.state import read_record
from tests.agent.headless_run import beecode

if TYPE_CHECKING:
    from server.engine.build import Engine

pytestmark = [pytest.mark.real_server, pytest.mark.usefixtures("beecode_dirs")]


def test_a_headless_run_says_the_server_it_leaves_and_ps_names_the_supervisor(
    engine: Engine,
    qwen_path: Path,
    workspace: Path,
    servers_on: Callable[[int], list[int]],
) -> None:
    port = free_port()
    try:
        up = beecode("server", "up", "--profile", "tiny", "--port", str(port), cwd=workspace)
        assert up.returncode == 0, up.stderr
        task = ["-p", "Reply with one word: hi", "--max-steps", "1", "--permission-mode", "yolo"]
        done = beecode(*task, "--profile", "tiny", cwd=workspace)
        assert done.returncode in (0, 3), done.stderr
        assert done.stderr.splitlines()[-1] == (
            f"beecode: llama-server (profile tiny) keeps running at http://127.0.0.1:{port} "
            "for the next run; `beecode server down` stops it"
        )
        record = read_record()
        assert record is not None
        title = " ".join(cmdline(record["supervisor_pid"])).strip()  # padded to its old length
        assert title == (
            f"beecode server supervisor (profile tiny, llama-server on 127.0.0.1:{port})"
        )

        wrong = beecode("-p", "hi", "--profile", "nosuch", cwd=workspace)
        assert wrong.returncode == 1
        [line] = wrong.stderr.splitlines()
        assert line.startswith("beecode: unknown profile 'nosuch' (known: ") and "tiny" in line
        wrong = beecode("server", "up", "--profile", "nosuch", cwd=workspace)
        assert wrong.returncode != 0
        assert "unknown profile 'nosuch' (known: " in wrong.stderr
        assert "already runs" not in wrong.stderr
        assert len(servers_on(port)) == 1  # the tiny server was left alone
    finally:
        beecode("server", "down", cwd=workspace)
    assert servers_on(port) == []

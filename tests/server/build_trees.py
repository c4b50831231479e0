"""Small real CMake trees for the engine-build tests: the real build path compiles them in place of
llama.cpp into a stand-in llama-server (a C program that answers --version and --help)."""

from __future__ import annotations

from pathlib import Path

import pytest

FAKE_SERVER_C = r"""
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        fprintf(stderr, "version: 1 (fake)\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        puts("-m,    --model FNAME                    model path");
        puts("--spec-type none,ngram-mod,draft-dflash  speculative types");
        puts("-lm,   --load-mode MODE                 how to load the model");
        return 0;
    }
    return 1;
}
"""
FAKE_CMAKE = """cmake_minimum_required(VERSION 3.14)
project(fake_llama C)
add_executable(llama-server server.c)
set_target_properties(llama-server PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
"""


def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache and state dir, so a build never touches the shared engine cache."""
    monkeypatch.setenv("BEECODE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BEECODE_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "cache"


def fake_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "fake-llama"
    tree.mkdir()
    (tree / "CMakeLists.txt").write_text(FAKE_CMAKE)
    (tree / "server.c").write_text(FAKE_SERVER_C)
    return tree


def published(cache: Path) -> list[str]:
    """The engine folders in a cache (work folders and locks start with a dot)."""
    engines = cache / "engines"
    if not engines.is_dir():
        return []
    return sorted(p.name for p in engines.iterdir() if not p.name.startswith("."))

"""Flag dialects: the real built binary's --help, and Bee fork help texts written from its docs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from server.engine.build import Engine
from server.engine.dialect import CACHE_FILE, parse_help, probe
from server.errors import LaunchError

DATA = Path(__file__).parent / "data"
UPSTREAM_CACHE_TYPES = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BEECODE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.real_server
def test_real_binary_speaks_the_upstream_dialect(engine: Engine) -> None:
    dialect = probe(engine.binary)
    assert dialect.dflash_type == "draft-dflash"
    assert dialect.load_mode and dialect.has("--load-mode")
    assert not dialect.has("--no-mmap") and not dialect.has("--mlock")
    assert not dialect.has("--spec-dflash-cross-ctx") and not dialect.has("--spec-draft-ctx-size")
    assert {"draft-dflash", "ngram-mod", "ngram-simple", "none"} <= set(dialect.spec_types)
    assert "dflash" not in dialect.spec_types
    assert dialect.cache_types == UPSTREAM_CACHE_TYPES
    assert not dialect.is_bee
    for flag in (
        "-np",
        "-kvu",
        "-ngl",
        "-fa",
        "--spec-draft-model",
        "--spec-type",
        "--metrics",
        "--jinja",
        "--host",
        "--port",
        "--cache-ram",
        "--spec-draft-n-max",
    ):
        assert dialect.has(flag), flag


@pytest.mark.real_server
def test_probe_is_cached_by_path_size_and_mtime(
    engine: Engine, private_cache: Path, tmp_path: Path
) -> None:
    binary = tmp_path / "llama-server"
    shutil.copy2(engine.binary, binary)
    first = probe(binary)
    cache_file = private_cache / CACHE_FILE
    cached = json.loads(cache_file.read_text())
    entry = cached[str(binary.resolve())]
    assert entry["size"] == binary.stat().st_size
    # Mark the cached entry: while the binary is unchanged, probe answers from the cache.
    entry["dialect"]["dflash_type"] = "from-cache"
    cache_file.write_text(json.dumps(cached))
    assert probe(binary).dflash_type == "from-cache"
    stat = binary.stat()
    os.utime(binary, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert probe(binary) == first


def test_bee_fork_dialect_from_its_help() -> None:
    dialect = parse_help((DATA / "help-bee-0.3.txt").read_text())
    assert dialect.dflash_type == "dflash"
    assert dialect.is_bee and not dialect.load_mode
    for flag in (
        "--spec-dflash-cross-ctx",
        "-cd",
        "--spec-draft-ctx-size",
        "--no-mmap",
        "--mlock",
        "-fa",
        "--flash-attn",
        "-ngld",
        "-cram",
        "--spec-dm-adaptive",
        "--no-spec-dm-adaptive",
        "--reasoning-loop-guard",
    ):
        assert dialect.has(flag), flag
    assert dialect.spec_types[-1] == "dflash" and "copyspec" in dialect.spec_types
    assert dialect.cache_types[:9] == UPSTREAM_CACHE_TYPES
    assert "turbo3_tcq" in dialect.cache_types
    assert not dialect.has("N") and not dialect.has("--load-mode")


def test_bee_04_uses_upstream_dflash_with_bee_extras() -> None:
    dialect = parse_help((DATA / "help-bee-0.4.txt").read_text())
    assert dialect.dflash_type == "draft-dflash"
    assert dialect.is_bee and dialect.load_mode
    assert not dialect.has("--spec-dflash-cross-ctx") and not dialect.has("--spec-draft-ctx-size")
    assert "kvarn4" in dialect.cache_types and "turbo4" not in dialect.cache_types


def test_help_without_speculation_has_no_dflash() -> None:
    dialect = parse_help("-m,    --model FNAME                    model path\n")
    assert dialect.dflash_type is None and dialect.spec_types == () and not dialect.is_bee
    assert dialect.flags == {"-m", "--model"}


def test_a_binary_that_cannot_list_flags_is_a_one_line_error(
    private_cache: Path, tmp_path: Path
) -> None:
    with pytest.raises(LaunchError, match="no llama-server at"):
        probe(tmp_path / "missing")
    with pytest.raises(LaunchError, match="--help failed") as caught:
        probe(Path(shutil.which("false") or "/bin/false"))
    assert "\n" not in str(caught.value)

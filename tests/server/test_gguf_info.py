"""GGUF metadata: the real wheel models, SWA and hybrid layouts written here, bad files."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from gguf import GGUFWriter

from server.errors import ModelError
from server.models.gguf_header import ArrayLength, read_metadata
from server.models.gguf_info import info_from_facts, read_gguf
from server.models.spec import QWEN25_CODER_05B, SMOLLM2_135M


def test_smollm2(smollm2_path: Path) -> None:
    info = read_gguf(smollm2_path)
    assert (info.architecture, info.block_count, info.embedding_length) == ("llama", 30, 576)
    assert (info.head_count, info.head_count_kv) == (9, (3,) * 30)
    assert (info.key_length, info.value_length, info.key_length_swa) == (64, 64, None)
    assert (info.vocab_size, info.context_length) == (49152, 8192)
    assert info.sliding_window is None and info.swa_layers == (False,) * 30
    assert info.has_chat_template and info.dflash_block_size is None
    assert info.size_bytes == 98_362_432 and info.path == smollm2_path


def test_qwen(qwen_path: Path) -> None:
    info = read_gguf(qwen_path)
    assert (info.architecture, info.name) == ("qwen2", "Qwen2.5 Coder 0.5B Instruct AWQ")
    assert (info.block_count, info.embedding_length, info.head_count) == (24, 896, 14)
    assert info.head_count_kv == (2,) * 24 and info.key_length == 64
    assert (info.vocab_size, info.context_length, info.has_chat_template) == (151936, 32768, True)
    # Vocabularies are skipped, not read: only their length is kept.
    assert read_metadata(qwen_path)["tokenizer.ggml.tokens"] == ArrayLength(151936)


def _write(path: Path, arch: str, keys: dict[str, Any]) -> Path:
    """A metadata-only GGUF (no tensors) with the given keys under `arch.`."""
    writer = GGUFWriter(path, arch)
    for key, value in keys.items():
        full = key if key.startswith(("general.", "tokenizer.")) else f"{arch}.{key}"
        if isinstance(value, list):
            writer.add_array(full, value)
        elif isinstance(value, bool):
            writer.add_bool(full, value)
        elif isinstance(value, str):
            writer.add_string(full, value)
        else:
            writer.add_uint32(full, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


_BASE = {"block_count": 12, "embedding_length": 256, "attention.head_count": 8}


def test_gemma4_per_layer_heads_and_swa_pattern_array(tmp_path: Path) -> None:
    swa = [il % 6 < 5 for il in range(12)]
    path = _write(tmp_path / "g4.gguf", "gemma4", {
        **_BASE, "attention.head_count_kv": [16 if s else 4 for s in swa],
        "attention.key_length": 512, "attention.value_length": 512,
        "attention.key_length_swa": 256, "attention.value_length_swa": 256,
        "attention.sliding_window": 1024, "attention.sliding_window_pattern": swa,
    })  # fmt: skip
    info = read_gguf(path)
    assert info.swa_layers == tuple(swa) and info.sliding_window == 1024
    assert info.head_count_kv == (16, 16, 16, 16, 16, 4) * 2
    assert (info.key_length, info.key_length_swa, info.value_length_swa) == (512, 256, 256)
    assert info.vocab_size == 0 and not info.has_chat_template and info.name == "g4"


@pytest.mark.parametrize(
    ("arch", "pattern", "full_layers"),
    [
        ("gemma3", None, (5, 11)),  # llama.cpp's Gemma 3 default: every 6th layer is full
        ("gemma4", None, (5, 11)),
        ("gemma2", None, (1, 3, 5, 7, 9, 11)),
        ("gemma3", 4, (3, 7, 11)),  # an integer pattern in the file wins
        ("cohere2moe", None, (0, 4, 8)),  # dense-first pattern
        ("mistral3", None, ()),  # a window but no pattern: every layer slides
    ],
)
def test_swa_patterns(
    tmp_path: Path, arch: str, pattern: int | None, full_layers: tuple[int, ...]
) -> None:
    keys = {**_BASE, "attention.sliding_window": 512}
    if pattern is not None:
        keys["attention.sliding_window_pattern"] = pattern
    info = read_gguf(_write(tmp_path / "m.gguf", arch, keys))
    assert tuple(il for il, s in enumerate(info.swa_layers) if not s) == full_layers


def test_layers_without_kv(tmp_path: Path) -> None:
    # Qwen3.5/3.6 hybrids: only every 4th layer (default interval) has attention and a KV cache.
    keys = {**_BASE, "attention.head_count_kv": 2}
    hybrid = read_gguf(_write(tmp_path / "q.gguf", "qwen35", keys))
    assert hybrid.head_count_kv == (0, 0, 0, 2) * 3
    # Gemma 3n/4: the last shared_kv_layers layers reuse earlier layers' caches.
    shared = read_gguf(_write(tmp_path / "s.gguf", "gemma4", {
        **_BASE, "attention.head_count_kv": 2, "attention.shared_kv_layers": 4,
        "attention.sliding_window": 512,
    }))  # fmt: skip
    assert shared.head_count_kv == (2,) * 8 + (0,) * 4


def test_dflash_block_size_in_both_formats(tmp_path: Path) -> None:
    upstream = _write(tmp_path / "u.gguf", "dflash", {**_BASE, "block_size": 16,
                      "target_layers": [1, 15, 28]})  # fmt: skip
    bee = _write(tmp_path / "b.gguf", "dflash-draft", {**_BASE, "dflash.block_size": 8,
                 "dflash.target_layer_ids": [2, 9]})  # fmt: skip
    assert (read_gguf(upstream).dflash_block_size, read_gguf(upstream).dflash_target_layers) == (
        16, (1, 15, 28))  # fmt: skip
    assert (read_gguf(bee).dflash_block_size, read_gguf(bee).dflash_target_layers) == (8, (2, 9))


def _prefix(source: Path, dest: Path, n_bytes: int) -> Path:
    with source.open("rb") as fh:
        dest.write_bytes(fh.read(n_bytes))
    return dest


def test_bad_files_are_one_line_model_errors(tmp_path: Path, smollm2_path: Path) -> None:
    cases = {
        tmp_path / "missing.gguf": "does not exist",
        tmp_path: "is a directory, not a GGUF file",
        _prefix(smollm2_path, tmp_path / "stub.gguf", 10): "is not a GGUF file (only 10 bytes)",
        _prefix(smollm2_path, tmp_path / "head.gguf", 1 << 20): "is truncated (its header runs",
        _prefix(smollm2_path, tmp_path / "half.gguf", 50_000_000): "is truncated (50,000,000 bytes",
    }
    (tmp_path / "text.gguf").write_text("not a model at all, but long enough to read a header\n")
    cases[tmp_path / "text.gguf"] = "is not a GGUF file (wrong magic bytes)"
    (tmp_path / "junk.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 64)
    cases[tmp_path / "junk.gguf"] = "junk.gguf is truncated"
    for path, message in cases.items():
        with pytest.raises(ModelError) as caught:
            read_gguf(path)
        assert message in str(caught.value) and str(path) in str(caught.value)
        assert "\n" not in str(caught.value)


def test_a_gguf_without_architecture_is_not_a_model(tmp_path: Path) -> None:
    writer = GGUFWriter(tmp_path / "v.gguf", "llama")
    writer.kv_data[0].clear()  # drop general.architecture, as a vocab-only file might
    writer.add_string("general.name", "vocab only")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ModelError, match="has no general.architecture"):
        read_gguf(tmp_path / "v.gguf")


def test_figures_are_kept_per_file_and_read_again_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BEECODE_CACHE_DIR", str(tmp_path / "cache"))
    path = _write(tmp_path / "m.gguf", "llama", _BASE)
    first = read_gguf(path)
    assert read_gguf(path) == first and (tmp_path / "cache" / "gguf_info.json").is_file()
    _write(path, "llama", {**_BASE, "block_count": 3})
    assert read_gguf(path).block_count == 3
    # A file seen before is described without its header, so without gguf (and numpy).
    code = (
        "import sys\nfrom server.models.gguf_info import read_gguf\n"
        f"assert read_gguf({str(path)!r}).block_count == 3\nprint('gguf' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def test_the_pinned_models_facts_are_their_headers(smollm2_path: Path, qwen_path: Path) -> None:
    """What `server plan` states for a model not yet fetched is what the file says once it is."""
    for spec, path in ((SMOLLM2_135M, smollm2_path), (QWEN25_CODER_05B, qwen_path)):
        stated, real = info_from_facts(spec), read_gguf(path)
        assert stated is not None
        skip = {"path", "name", "has_chat_template"}
        assert {k: v for k, v in asdict(stated).items() if k not in skip} == {
            k: v for k, v in asdict(real).items() if k not in skip
        }

"""The random vision projector (server.models.random_mmproj): the keys and tensors clip.cpp reads
for a gemma4v projector, projecting into the target's embedding size; a file that is no text
model gets one line and nothing is written. The real server loads it in
tests/agent/test_vision_real_server.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from gguf import GGUFReader

from server.errors import ModelError
from server.models.gguf_header import read_metadata
from server.models.random_mmproj import BLOCKS, HIDDEN, PATCH, POSITIONS, write_random_mmproj


def test_the_projector_has_what_clip_reads_for_gemma4v(qwen_path: Path, tmp_path: Path) -> None:
    out = write_random_mmproj(qwen_path, tmp_path / "mmproj.gguf")
    meta = read_metadata(out)
    assert meta["general.architecture"] == "clip"
    assert meta["clip.projector_type"] == "gemma4v" and meta["clip.has_vision_encoder"] is True
    assert meta["clip.vision.projection_dim"] == 896  # Qwen2.5-Coder 0.5B's n_embd
    assert meta["clip.vision.embedding_length"] == HIDDEN
    assert meta["clip.vision.patch_size"] == PATCH
    assert meta["clip.vision.image_mean"] == (0.0, 0.0, 0.0)
    shapes = {t.name: tuple(int(n) for n in t.shape) for t in GGUFReader(out).tensors}  # ggml ne
    assert shapes["mm.input_projection.weight"] == (HIDDEN, 896)
    assert shapes["v.patch_embd.weight"] == (PATCH, PATCH, 3, HIDDEN)
    assert shapes["v.position_embd.weight"] == (HIDDEN, POSITIONS, 2)  # x table, then y table
    per_block = {n.split(".", 3)[3] for n in shapes if n.startswith("v.blk.")}
    assert per_block == {
        f"{part}.weight"
        for part in ("ln1", "attn_q", "attn_k", "attn_v", "attn_out", "attn_q_norm",
                     "attn_k_norm", "attn_post_norm", "ln2", "ffn_gate", "ffn_up", "ffn_down",
                     "ffn_post_norm")
    }  # fmt: skip
    assert len(shapes) == 3 + 13 * BLOCKS
    assert out.stat().st_size < 4 * 2**20
    assert [p.name for p in tmp_path.iterdir()] == ["mmproj.gguf"]  # no temporary left


def test_a_file_that_is_no_text_model_is_refused(qwen_path: Path, tmp_path: Path) -> None:
    projector = write_random_mmproj(qwen_path, tmp_path / "mmproj.gguf")
    with pytest.raises(ModelError, match="is not a text model with embeddings"):
        write_random_mmproj(projector, tmp_path / "again.gguf")
    assert not list(tmp_path.glob("*again*"))

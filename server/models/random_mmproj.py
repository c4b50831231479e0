"""A random-weight vision projector (an mmproj GGUF, architecture `clip`) for a text model, so
images run through the real llama-server on CPU where no real projector can be fetched.

Projector type `gemma4v`, the one the Gemma 4 profiles' real projector has: the CPU engine loads
it beside any text model whose embedding size it projects to (Qwen2.5-Coder 0.5B's 896 in the
tests). The layout is upstream b11434's tools/mtmd (clip.cpp's load_hparams and load_tensors,
models/gemma4v.cpp): a patch convolution without bias, learned x/y position tables, pre-norm ViT
blocks with per-head Q/K norms and post-attention/post-FFN norms and a gated GELU FFN, then a
3x3 average pool and `mm.input_projection` into the text model's embeddings. Tiny (one block,
32 wide, 4-pixel patches), it loads and encodes an image in milliseconds; the engine gives each
image 70 to 1120 tokens (gemma4v's limits), so what the text model sees costs what a real
image's tokens cost. The features are noise: the model cannot say what the image shows.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from gguf import GGUFWriter

from server.errors import ModelError
from server.models.gguf_info import read_gguf
from server.models.gguf_out import write_atomically

PROJECTOR_TYPE = "gemma4v"
HIDDEN = 32
HEADS = 2
FFN = 64
BLOCKS = 1
PATCH = 4
POSITIONS = 10240  # patches per side the position tables cover (Gemma 4's own figure)
MIN_IMAGE_TOKENS = 70  # the engine's floor for a gemma4v image (clip.cpp set_limit_image_tokens)

Array = np.ndarray[Any, np.dtype[np.float32]]


def write_random_mmproj(target: Path, out: Path, *, seed: int = 0) -> Path:
    """Write a random gemma4v projector into ``target``'s embeddings to ``out`` (atomically) and
    return ``out``."""
    info = read_gguf(target)
    if info.architecture == "clip" or info.embedding_length <= 0:
        raise ModelError(f"{target} is not a text model with embeddings a projector can feed")
    n_embd_text = info.embedding_length
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    writer = GGUFWriter(tmp, "clip")
    writer.add_name(f"random {PROJECTOR_TYPE} projector for {info.name}")
    writer.add_bool("clip.has_vision_encoder", True)
    writer.add_string("clip.projector_type", PROJECTOR_TYPE)
    writer.add_bool("clip.use_gelu", True)
    writer.add_uint32("clip.vision.embedding_length", HIDDEN)
    writer.add_uint32("clip.vision.feed_forward_length", FFN)
    writer.add_uint32("clip.vision.block_count", BLOCKS)
    writer.add_uint32("clip.vision.projection_dim", n_embd_text)
    writer.add_uint32("clip.vision.attention.head_count", HEADS)
    writer.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    writer.add_uint32("clip.vision.image_size", 16 * 3 * PATCH)  # the warm-up image's side
    writer.add_uint32("clip.vision.patch_size", PATCH)
    writer.add_array("clip.vision.image_mean", [0.0, 0.0, 0.0])
    writer.add_array("clip.vision.image_std", [1.0, 1.0, 1.0])
    for name, tensor in _random_tensors(n_embd_text, seed):
        writer.add_tensor(name, tensor)
    return write_atomically(writer, tmp, out)


def _random_tensors(n_embd_text: int, seed: int) -> Iterator[tuple[str, Array]]:
    """F32 weights ~ N(0, 0.02) and unit norms, exactly the tensors clip.cpp reads for gemma4v.
    Shapes are numpy order (ggml's ne reversed)."""
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> Array:
        return rng.normal(0.0, 0.02, size=shape).astype(np.float32)

    def norm(n: int) -> Array:
        return np.ones(n, dtype=np.float32)

    head_dim = HIDDEN // HEADS
    yield "v.patch_embd.weight", weight(HIDDEN, 3, PATCH, PATCH)
    yield "v.position_embd.weight", weight(2, POSITIONS, HIDDEN)  # an x table, then a y table
    for il in range(BLOCKS):
        blk = f"v.blk.{il}"
        yield f"{blk}.ln1.weight", norm(HIDDEN)
        for part in ("attn_q", "attn_k", "attn_v", "attn_out"):
            yield f"{blk}.{part}.weight", weight(HIDDEN, HIDDEN)
        yield f"{blk}.attn_q_norm.weight", norm(head_dim)
        yield f"{blk}.attn_k_norm.weight", norm(head_dim)
        yield f"{blk}.attn_post_norm.weight", norm(HIDDEN)
        yield f"{blk}.ln2.weight", norm(HIDDEN)
        yield f"{blk}.ffn_gate.weight", weight(FFN, HIDDEN)
        yield f"{blk}.ffn_up.weight", weight(FFN, HIDDEN)
        yield f"{blk}.ffn_down.weight", weight(HIDDEN, FFN)
        yield f"{blk}.ffn_post_norm.weight", norm(HIDDEN)
    yield "mm.input_projection.weight", weight(n_embd_text, HIDDEN)

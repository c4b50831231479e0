"""A random-weight llama-architecture target of a chosen shape, for machines real weights cannot
reach (a borrowed GPU machine without a network): Q4_0 blocks of random bytes with small finite
f16 scales, norms of one, and a small model's tokenizer (SmolLM2's, from its GGUF header). Its
text is noise and a drafter never agrees with it: it measures speed, memory and code paths.

Written in seconds (an 8B shape, 4.2 GB, in ~10 s), so it is written where it runs, not carried.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, LlamaFileType

from server.errors import ModelError
from server.models.gguf_header import read_fields
from server.models.gguf_out import write_atomically

ARCH = "llama"
Q4_0_BLOCK = (32, 18)  # weights per block, bytes per block (an f16 scale, 16 bytes of nibbles)
SCALE = np.float16(0.002)  # random nibbles (-8..7) times this: weights within +-0.016


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    ffn: int
    context: int = 8192


SHAPE_8B = Shape(4096, 32, 32, 8, 14336)  # Llama 3 8B's, as the H200 run of 2026-12-04 used
SHAPE_TINY = Shape(256, 4, 4, 2, 512)  # for CPU tests: loads and decodes in well under a second


def write_random_target(tokenizer_from: Path, out: Path, shape: Shape, seed: int = 0) -> Path:
    """Write the target to ``out`` (atomically) and return ``out``."""
    fields = {k: f for k, f in read_fields(tokenizer_from).items() if k.startswith("tokenizer.")}
    tokens = fields["tokenizer.ggml.tokens"].value
    vocab = len(tokens) if isinstance(tokens, tuple) else 0
    if not vocab:
        raise ModelError(f"{tokenizer_from} has no tokenizer token list to copy")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    writer = GGUFWriter(tmp, ARCH)
    writer.add_name(f"random {ARCH} {shape.hidden}x{shape.layers}")
    writer.add_file_type(LlamaFileType.MOSTLY_Q4_0)
    writer.add_context_length(shape.context)
    writer.add_embedding_length(shape.hidden)
    writer.add_block_count(shape.layers)
    writer.add_feed_forward_length(shape.ffn)
    writer.add_head_count(shape.heads)
    writer.add_head_count_kv(shape.kv_heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_freq_base(500000.0)
    writer.add_vocab_size(vocab)
    for key, field in fields.items():
        writer.add_key_value(key, field.value, field.type, field.item_type)
    rng = np.random.default_rng(seed)
    for name, rows, cols in _matrices(shape, vocab):
        if cols == 0:  # a norm
            writer.add_tensor(name, np.ones(rows, dtype=np.float32))
        else:
            writer.add_tensor(name, _q4_0(rng, rows, cols), raw_dtype=GGMLQuantizationType.Q4_0)
    return write_atomically(writer, tmp, out)


def _matrices(shape: Shape, vocab: int) -> Iterator[tuple[str, int, int]]:
    """(name, rows, columns) in numpy order; columns 0 marks a norm of ``rows`` ones. No output
    matrix: llama.cpp ties it to the token embedding."""
    head_dim = shape.hidden // shape.heads
    kv = shape.kv_heads * head_dim
    yield "token_embd.weight", vocab, shape.hidden
    yield "output_norm.weight", shape.hidden, 0
    for il in range(shape.layers):
        yield f"blk.{il}.attn_norm.weight", shape.hidden, 0
        yield f"blk.{il}.attn_q.weight", shape.hidden, shape.hidden
        yield f"blk.{il}.attn_k.weight", kv, shape.hidden
        yield f"blk.{il}.attn_v.weight", kv, shape.hidden
        yield f"blk.{il}.attn_output.weight", shape.hidden, shape.hidden
        yield f"blk.{il}.ffn_norm.weight", shape.hidden, 0
        yield f"blk.{il}.ffn_gate.weight", shape.ffn, shape.hidden
        yield f"blk.{il}.ffn_up.weight", shape.ffn, shape.hidden
        yield f"blk.{il}.ffn_down.weight", shape.hidden, shape.ffn


def _q4_0(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """Q4_0 blocks as bytes, (rows, cols / 32 * 18): random nibbles under a small scale."""
    per_block, block_bytes = Q4_0_BLOCK
    blocks = rng.integers(0, 256, size=(rows, cols // per_block, block_bytes), dtype=np.uint8)
    blocks[:, :, :2] = np.frombuffer(SCALE.tobytes(), dtype=np.uint8)
    return blocks.reshape(rows, -1)

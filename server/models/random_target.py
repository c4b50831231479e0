"""Random-weight targets in the shipped GPU profiles' architectures, for machines real weights
cannot reach (a borrowed GPU machine without a network): Gemma 4 (`gemma4`: sliding-window layers
and every sixth a full-attention one with its own head size, proportional RoPE and K reused as V)
and Qwen 3.5/3.6 (`qwen35`: gated delta-net linear-attention layers with every fourth a gated
full-attention one, optionally followed by MTP layers).

Q4_0 blocks of random bytes under a small finite f16 scale, norms of one, and a small model's
tokenizer (SmolLM2's, from its GGUF header), padded with plain tokens to the real vocabulary's size
so the output matrix, the logits and the sampling cost what the real model's do. The text is noise
and no drafter agrees with it: such a target measures speed, memory and code paths.

Each file holds exactly the tensors the loaders create (both llama.cpp loaders refuse a tensor
they did not read): upstream b11434's src/models/gemma4.cpp and qwen35.cpp, BeeLlama v0.2.0's
src/llama-model.cpp (LLM_ARCH_GEMMA4, LLM_ARCH_QWEN35). Bee v0.2.0 has no MTP layers: a target
with `mtp_layers` is for engines with `--spec-type draft-mtp` only.

Every tensor of one shape shares one random block, so a 31B target (17 GB) takes the disk's time,
not the random generator's: written where it runs, not carried.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gguf import GGMLQuantizationType, GGUFValueType, GGUFWriter, LlamaFileType

from server.errors import ModelError
from server.models.gguf_header import MetaField, read_fields
from server.models.gguf_out import write_atomically
from server.models.random_layouts import Gemma4Shape, Qwen35Shape, Tensor

Shape = Gemma4Shape | Qwen35Shape
Q4_0_BLOCK = (32, 18)  # weights per block, bytes per block (an f16 scale, 16 bytes of nibbles)
SCALE = np.float16(0.002)  # random nibbles (-8..7) times this: weights within +-0.016
PAD_TOKEN = "Ġpad{:06d}"  # a plain token (" pad000123" in text) never met by the tokenizer

# The shipped profiles' targets (server.profiles.model_facts), at their real sizes.
GEMMA4_31B = Gemma4Shape(
    hidden=5376, layers=60, heads=32, ffn=21504, swa_kv_heads=16, swa_head_dim=256,
    full_kv_heads=4, full_head_dim=512, window=1024, vocab=262144,
)  # fmt: skip
QWEN36_27B = Qwen35Shape(
    hidden=5120, layers=64, heads=24, kv_heads=4, head_dim=256, ffn=17408,
    linear_k_heads=16, linear_v_heads=48, linear_head_dim=128, vocab=248320,
)  # fmt: skip
# The same layouts scaled down for CPU tests: each loads and decodes in about a second.
GEMMA4_TINY = Gemma4Shape(
    hidden=256, layers=6, heads=4, ffn=512, swa_kv_heads=2, swa_head_dim=64,
    full_kv_heads=1, full_head_dim=128, window=128, context=8192,
)  # fmt: skip
QWEN35_TINY = Qwen35Shape(
    hidden=256, layers=8, heads=2, kv_heads=1, head_dim=256, ffn=512,
    linear_k_heads=2, linear_v_heads=4, linear_head_dim=64, context=8192,
)  # fmt: skip


@dataclass(frozen=True)
class Written:
    path: Path
    arch: str
    n_tensors: int
    vocab: int


def write_random_target(tokenizer_from: Path, out: Path, shape: Shape, seed: int = 0) -> Written:
    """Write the target for ``shape`` to ``out`` (atomically), the tokenizer from the GGUF file
    ``tokenizer_from``."""
    fields = {k: f for k, f in read_fields(tokenizer_from).items() if k.startswith("tokenizer.")}
    tokens, vocab = _vocabulary(tokenizer_from, fields, shape.vocab)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    writer = GGUFWriter(tmp, shape.arch)
    writer.add_name(f"random {shape.arch} {shape.hidden}x{shape.layers}")
    writer.add_file_type(LlamaFileType.MOSTLY_Q4_0)
    writer.add_vocab_size(vocab)
    shape.add_keys(writer)
    for key, field in fields.items():
        value: Any = field.value
        if key in tokens:
            value = tokens[key]
        writer.add_key_value(key, value, field.type, field.item_type)
    blocks = _Blocks(np.random.default_rng(seed))
    count = 0
    for tensor in shape.tensors(vocab):
        _add(writer, tensor, blocks)
        count += 1
    write_atomically(writer, tmp, out)
    return Written(out, shape.arch, count, vocab)


def copy_tokenizer(source: Path, out: Path) -> Path:
    """A GGUF file of ``source``'s tokenizer keys and nothing else (SmolLM2's: 2 MB), for a
    machine that can fetch no model to take them from."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    writer = GGUFWriter(tmp, "tokenizer")
    for key, field in read_fields(source).items():
        if key.startswith("tokenizer."):
            writer.add_key_value(key, field.value, field.type, field.item_type)
    return write_atomically(writer, tmp, out)


def _vocabulary(
    source: Path, fields: dict[str, MetaField], size: int | None
) -> tuple[dict[str, list[Any]], int]:
    """The per-token arrays padded to ``size`` tokens (None: as they are), and the vocab size."""
    tokens = fields.get("tokenizer.ggml.tokens")
    own = list(tokens.value) if tokens is not None and isinstance(tokens.value, tuple) else []
    if not own:
        raise ModelError(f"{source} has no tokenizer token list to copy")
    if size is None or size <= len(own):
        return {}, len(own)
    known = set(own)
    pads = [PAD_TOKEN.format(i) for i in range(size - len(own))]
    if known.intersection(pads):
        raise ModelError(f"{source} already has tokens named like the padding ({PAD_TOKEN})")
    padded: dict[str, list[Any]] = {"tokenizer.ggml.tokens": own + pads}
    extra = len(pads)
    for key, fill in (("tokenizer.ggml.token_type", 1), ("tokenizer.ggml.scores", 0.0)):
        field = fields.get(key)
        if field is not None and field.type == GGUFValueType.ARRAY:
            values = field.value
            padded[key] = list(values if isinstance(values, tuple) else ()) + [fill] * extra
    return padded, size


class _Blocks:
    """Random Q4_0 blocks per matrix shape, made once and shared by every tensor of that shape."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.made: dict[tuple[int, int], np.ndarray[Any, np.dtype[np.uint8]]] = {}

    def q4_0(self, rows: int, cols: int) -> np.ndarray[Any, np.dtype[np.uint8]]:
        per_block, block_bytes = Q4_0_BLOCK
        if cols % per_block:
            raise ModelError(f"a Q4_0 row needs a multiple of {per_block} weights, not {cols}")
        if (rows, cols) not in self.made:
            shape = (rows, cols // per_block, block_bytes)
            blocks = self.rng.integers(0, 256, size=shape, dtype=np.uint8)
            blocks[:, :, :2] = np.frombuffer(SCALE.tobytes(), dtype=np.uint8)
            self.made[(rows, cols)] = blocks.reshape(rows, -1)
        return self.made[(rows, cols)]

    def noise(self, dims: tuple[int, ...]) -> np.ndarray[Any, np.dtype[np.float32]]:
        return self.rng.normal(0.0, 0.02, size=dims).astype(np.float32)


def _add(writer: GGUFWriter, tensor: Tensor, blocks: _Blocks) -> None:
    name, dims, fill = tensor
    if isinstance(fill, np.ndarray):
        writer.add_tensor(name, fill)
    elif fill == "q4_0":
        rows, cols = dims
        writer.add_tensor(name, blocks.q4_0(rows, cols), raw_dtype=GGMLQuantizationType.Q4_0)
    else:
        writer.add_tensor(name, blocks.noise(dims))

"""A random-weight DFlash drafter for a llama-architecture target, so the DFlash path runs on CPU.

Layout per cpu-rig.md §9 (upstream `src/models/dflash.cpp`): architecture `dflash`, the target's
tokenizer plus a mask token, a feature-fusion `fc` over a few target layers, and small attention +
FFN blocks. No token embedding or LM head: the draft shares the target's. Acceptance is 0 with
random weights; the point is exercising the code path. `arch="dflash-draft"` writes what BeeLlama
v0.2.0 loads (src/llama-model.cpp, LLM_ARCH_DFLASH_DRAFT): its nested `dflash-draft.dflash.*` keys,
`dflash_fc` and `dflash_hidden_norm` for the fusion, and `blk.N.post_attention_norm` where upstream
has `ffn_norm`. `drafter_arch` picks the layout an engine loads from its dialect.

Bee v0.2.0 loads that file for any target, but drafts only for the targets whose graphs capture
the hidden states DFlash reads (qwen35, qwen35moe, gemma4-iswa in its src/models/): with a llama
target such as SmolLM2 its first drafted request aborts ("get_logits_ith: invalid logits id 0").
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from gguf import GGUFValueType, GGUFWriter

from server.errors import ModelError
from server.models.gguf_header import read_fields, read_metadata
from server.models.gguf_info import read_gguf
from server.models.gguf_out import write_atomically

if TYPE_CHECKING:
    from server.engine.dialect import Dialect

BLOCK_SIZE = 16
_DRAFT_LAYERS = 2
_DRAFT_FFN = 512
_N_TARGET_LAYERS = 3


def write_random_dflash_drafter(
    target: Path,
    out: Path,
    *,
    arch: Literal["dflash", "dflash-draft"] = "dflash",
    seed: int = 0,
) -> Path:
    """Write a random DFlash draft for `target` to `out` (atomically) and return `out`."""
    info = read_gguf(target)
    # The attention layers' KV heads: a hybrid target's recurrent layers keep none (Qwen 3.6's
    # layer 0), and a sliding-window one's differ from its full layers' (Gemma 4).
    n_head_kv = max(info.head_count_kv, default=0)
    if info.block_count < 4 or not info.head_count or not n_head_kv:
        raise ModelError(f"{target} is too small or too unusual to host a DFlash draft")
    n_embd, head_dim = info.embedding_length, info.key_length
    n_head = info.head_count
    target_layers = _spread_layers(info.block_count)

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    writer = GGUFWriter(tmp, arch)
    writer.add_name(f"random DFlash draft for {info.name}")
    writer.add_uint32(f"{arch}.context_length", info.context_length)
    writer.add_uint32(f"{arch}.embedding_length", n_embd)
    writer.add_uint32(f"{arch}.block_count", _DRAFT_LAYERS)
    writer.add_uint32(f"{arch}.feed_forward_length", _DRAFT_FFN)
    writer.add_uint32(f"{arch}.attention.head_count", n_head)
    writer.add_uint32(f"{arch}.attention.head_count_kv", n_head_kv)
    writer.add_uint32(f"{arch}.attention.key_length", head_dim)
    writer.add_uint32(f"{arch}.attention.value_length", head_dim)
    writer.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-5)
    writer.add_float32(f"{arch}.rope.freq_base", _target_rope_base(target, info.architecture))
    if arch == "dflash":
        writer.add_uint32("dflash.block_size", BLOCK_SIZE)
        writer.add_array("dflash.target_layers", target_layers)
    else:  # Bee's converter (`DFlashDraftModel`) nests the DFlash keys one level deeper
        writer.add_uint32("dflash-draft.dflash.block_size", BLOCK_SIZE)
        writer.add_uint32("dflash-draft.dflash.mask_token_id", 0)
        writer.add_array("dflash-draft.dflash.target_layer_ids", target_layers)
        writer.add_uint32("dflash-draft.dflash.n_target_features", len(target_layers) * n_embd)
    for key, value, vtype, sub_type in _tokenizer_fields(target):
        writer.add_key_value(key, value, vtype, sub_type)
    writer.add_uint32("tokenizer.ggml.mask_token_id", 0)

    for name, tensor in _random_tensors(arch, n_embd, n_head, n_head_kv, head_dim, seed):
        writer.add_tensor(name, tensor)
    return write_atomically(writer, tmp, out)


def drafter_arch(dialect: Dialect) -> Literal["dflash", "dflash-draft"]:
    """The drafter layout an engine loads, told by its DFlash --spec-type: BeeLlama <= 0.3 names
    it `dflash` and loads Bee's own layout; upstream and BeeLlama >= 0.4 name it `draft-dflash`
    and load upstream's (server.launch.llama_argv.DFLASH_ARCHS is the same table, read backwards).
    """
    if dialect.dflash_type is None:
        raise ModelError("this llama-server has no DFlash support, so no DFlash drafter fits it")
    return "dflash-draft" if dialect.dflash_type == "dflash" else "dflash"


def _spread_layers(n_layer: int) -> list[int]:
    """Target layers to capture, evenly spaced from layer 1 to n-2 (SmolLM2's 30 -> [1, 15, 28])."""
    points = np.linspace(1, n_layer - 2, _N_TARGET_LAYERS)
    return [int(p + 0.5) for p in points]


def _target_rope_base(target: Path, arch: str) -> float:
    value = read_metadata(target).get(f"{arch}.rope.freq_base")
    return float(value) if isinstance(value, int | float) else 10000.0


def _tokenizer_fields(target: Path) -> Iterator[tuple[str, Any, GGUFValueType, Any]]:
    """Every tokenizer.* key of the target with its GGUF types, ready for GGUFWriter."""
    for key, field in read_fields(target).items():
        if key.startswith("tokenizer.") and key != "tokenizer.ggml.mask_token_id":
            yield key, field.value, field.type, field.item_type


def _random_tensors(
    arch: str, n_embd: int, n_head: int, n_head_kv: int, head_dim: int, seed: int
) -> Iterator[tuple[str, np.ndarray[Any, np.dtype[np.float32]]]]:
    """F32 weights ~ N(0, 0.02) and unit norms. Shapes are numpy order (ggml's ne reversed).
    The loaders refuse a file with a tensor they do not read, so each layout has exactly its own."""
    bee = arch == "dflash-draft"
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        return rng.normal(0.0, 0.02, size=shape).astype(np.float32)

    def norm(n: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        return np.ones(n, dtype=np.float32)

    q_dim, kv_dim = n_head * head_dim, n_head_kv * head_dim
    yield ("dflash_fc" if bee else "fc") + ".weight", weight(n_embd, _N_TARGET_LAYERS * n_embd)
    yield ("dflash_hidden_norm" if bee else "enc.output_norm") + ".weight", norm(n_embd)
    yield "output_norm.weight", norm(n_embd)
    for il in range(_DRAFT_LAYERS):
        yield f"blk.{il}.attn_norm.weight", norm(n_embd)
        yield f"blk.{il}.attn_q.weight", weight(q_dim, n_embd)
        yield f"blk.{il}.attn_k.weight", weight(kv_dim, n_embd)
        yield f"blk.{il}.attn_v.weight", weight(kv_dim, n_embd)
        yield f"blk.{il}.attn_output.weight", weight(n_embd, q_dim)
        yield f"blk.{il}.attn_q_norm.weight", norm(head_dim)
        yield f"blk.{il}.attn_k_norm.weight", norm(head_dim)
        yield f"blk.{il}.{'post_attention_norm' if bee else 'ffn_norm'}.weight", norm(n_embd)
        yield f"blk.{il}.ffn_gate.weight", weight(_DRAFT_FFN, n_embd)
        yield f"blk.{il}.ffn_up.weight", weight(_DRAFT_FFN, n_embd)
        yield f"blk.{il}.ffn_down.weight", weight(n_embd, _DRAFT_FFN)

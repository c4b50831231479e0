"""The two layouts server.models.random_target writes: each shape's metadata keys and the tensors
its llama.cpp loader creates, in numpy order (ggml's ne reversed: a {n_embd, n_vocab} matrix is
(n_vocab, n_embd) here).

Gemma 4 (upstream src/models/gemma4.cpp, Bee v0.2.0 src/llama-model.cpp LLM_ARCH_GEMMA4; keys as
upstream's converter, conversion/gemma.py Gemma4Model, writes them): sliding-window layers with
`swa_kv_heads` x `swa_head_dim`, and every `swa_period`-th layer full attention with
`full_kv_heads` x `full_head_dim`, no V projection (K is reused, `attention_k_eq_v`), and the
shared `rope_freqs` that makes its RoPE proportional (a quarter of the dimensions rotate). The
output matrix is the token embedding's.

Qwen 3.5/3.6 (src/models/qwen35.cpp; conversion/qwen.py Qwen3_5TextModel): every
`interval`-th layer gated full attention (Q and its gate in one projection, interleaved M-RoPE
over a quarter of each head), the others gated delta-net linear attention (fused QKV, Z gate,
conv1d kernel, per-head decay and beta); then `mtp_layers` MTP blocks (`nextn`), which only
upstream and BeeLlama >= 0.4 load.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from gguf import GGUFWriter

Fill = Literal["q4_0", "noise"] | np.ndarray[Any, np.dtype[np.float32]]
Tensor = tuple[str, tuple[int, ...], Fill]  # name, numpy dims, random Q4_0 / F32 noise / values


def _ones(n: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.ones(n, dtype=np.float32)


def _values(n: int, value: float) -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.full(n, value, dtype=np.float32)


@dataclass(frozen=True)
class Gemma4Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    swa_kv_heads: int
    swa_head_dim: int
    full_kv_heads: int
    full_head_dim: int
    window: int
    swa_period: int = 6  # layers 0-4 sliding, 5 full, 6-10 sliding, ...
    vocab: int | None = None  # the tokenizer padded to this many tokens; None: its own
    context: int = 262144
    arch: ClassVar[str] = "gemma4"

    def is_swa(self, il: int) -> bool:
        return il % self.swa_period < self.swa_period - 1

    def add_keys(self, writer: GGUFWriter) -> None:
        swa = [self.is_swa(il) for il in range(self.layers)]
        writer.add_context_length(self.context)
        writer.add_embedding_length(self.hidden)
        writer.add_block_count(self.layers)
        writer.add_feed_forward_length(self.ffn)
        writer.add_head_count(self.heads)
        writer.add_head_count_kv([self.swa_kv_heads if s else self.full_kv_heads for s in swa])
        writer.add_key_length(self.full_head_dim)
        writer.add_value_length(self.full_head_dim)
        writer.add_key_length_swa(self.swa_head_dim)
        writer.add_value_length_swa(self.swa_head_dim)
        writer.add_rope_dimension_count(self.full_head_dim)  # proportional: rope_freqs picks
        writer.add_rope_dimension_count_swa(self.swa_head_dim)
        writer.add_rope_freq_base(1_000_000.0)
        writer.add_rope_freq_base_swa(10_000.0)
        writer.add_layer_norm_rms_eps(1e-6)
        writer.add_sliding_window(self.window)
        writer.add_sliding_window_pattern(swa)
        writer.add_shared_kv_layers(0)
        writer.add_embedding_length_per_layer_input(0)
        writer.add_final_logit_softcapping(30.0)

    def tensors(self, vocab: int) -> Iterator[Tensor]:
        d = self.hidden
        yield "token_embd.weight", (vocab, d), "q4_0"
        yield "output_norm.weight", (d,), _ones(d)
        # Full layers rotate a quarter of each head; the rest get a frequency factor of 1e30.
        pairs = self.full_head_dim // 2
        factors = np.array([1.0] * (pairs // 4) + [1e30] * (pairs - pairs // 4), np.float32)
        yield "rope_freqs.weight", (pairs,), factors
        for il in range(self.layers):
            swa = self.is_swa(il)
            head = self.swa_head_dim if swa else self.full_head_dim
            kv = (self.swa_kv_heads if swa else self.full_kv_heads) * head
            blk = f"blk.{il}"
            yield f"{blk}.attn_norm.weight", (d,), _ones(d)
            yield f"{blk}.attn_q.weight", (self.heads * head, d), "q4_0"
            yield f"{blk}.attn_k.weight", (kv, d), "q4_0"
            if swa:
                yield f"{blk}.attn_v.weight", (kv, d), "q4_0"
            yield f"{blk}.attn_output.weight", (d, self.heads * head), "q4_0"
            yield f"{blk}.attn_q_norm.weight", (head,), _ones(head)
            yield f"{blk}.attn_k_norm.weight", (head,), _ones(head)
            yield f"{blk}.post_attention_norm.weight", (d,), _ones(d)
            yield f"{blk}.ffn_norm.weight", (d,), _ones(d)
            yield f"{blk}.ffn_gate.weight", (self.ffn, d), "q4_0"
            yield f"{blk}.ffn_up.weight", (self.ffn, d), "q4_0"
            yield f"{blk}.ffn_down.weight", (d, self.ffn), "q4_0"
            yield f"{blk}.post_ffw_norm.weight", (d,), _ones(d)


@dataclass(frozen=True)
class Qwen35Shape:
    hidden: int
    layers: int  # the trunk's, MTP layers not counted
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    linear_k_heads: int
    linear_v_heads: int
    linear_head_dim: int
    conv_kernel: int = 4
    interval: int = 4  # layers 3, 7, 11, ... full attention
    mtp_layers: int = 0
    vocab: int | None = None
    context: int = 262144
    arch: ClassVar[str] = "qwen35"

    def is_full(self, il: int) -> bool:
        return il >= self.layers or (il + 1) % self.interval == 0

    def add_keys(self, writer: GGUFWriter) -> None:
        writer.add_context_length(self.context)
        writer.add_embedding_length(self.hidden)
        writer.add_block_count(self.layers + self.mtp_layers)
        if self.mtp_layers:
            writer.add_nextn_predict_layers(self.mtp_layers)
        writer.add_feed_forward_length(self.ffn)
        writer.add_head_count(self.heads)
        writer.add_head_count_kv(self.kv_heads)
        writer.add_key_length(self.head_dim)
        writer.add_value_length(self.head_dim)
        writer.add_rope_dimension_count(self.head_dim // 4)
        writer.add_rope_dimension_sections([11, 11, 10, 0])  # of the 32 rotated pairs
        writer.add_rope_freq_base(10_000_000.0)
        writer.add_layer_norm_rms_eps(1e-6)
        writer.add_ssm_conv_kernel(self.conv_kernel)
        writer.add_ssm_state_size(self.linear_head_dim)
        writer.add_ssm_group_count(self.linear_k_heads)
        writer.add_ssm_time_step_rank(self.linear_v_heads)
        writer.add_ssm_inner_size(self.linear_head_dim * self.linear_v_heads)
        writer.add_full_attention_interval(self.interval)

    def tensors(self, vocab: int) -> Iterator[Tensor]:
        d = self.hidden
        yield "token_embd.weight", (vocab, d), "q4_0"
        yield "output_norm.weight", (d,), _ones(d)
        yield "output.weight", (vocab, d), "q4_0"
        for il in range(self.layers + self.mtp_layers):
            blk = f"blk.{il}"
            yield f"{blk}.attn_norm.weight", (d,), _ones(d)
            yield f"{blk}.post_attention_norm.weight", (d,), _ones(d)
            yield from self._attention(il) if self.is_full(il) else self._linear(il)
            yield f"{blk}.ffn_gate.weight", (self.ffn, d), "q4_0"
            yield f"{blk}.ffn_down.weight", (d, self.ffn), "q4_0"
            yield f"{blk}.ffn_up.weight", (self.ffn, d), "q4_0"
            if il >= self.layers:
                yield f"{blk}.nextn.eh_proj.weight", (d, 2 * d), "q4_0"
                yield f"{blk}.nextn.enorm.weight", (d,), _ones(d)
                yield f"{blk}.nextn.hnorm.weight", (d,), _ones(d)
                yield f"{blk}.nextn.shared_head_norm.weight", (d,), _ones(d)

    def _attention(self, il: int) -> Iterator[Tensor]:
        d, blk, head = self.hidden, f"blk.{il}", self.head_dim
        yield f"{blk}.attn_q.weight", (self.heads * head * 2, d), "q4_0"  # query and its gate
        yield f"{blk}.attn_k.weight", (self.kv_heads * head, d), "q4_0"
        yield f"{blk}.attn_v.weight", (self.kv_heads * head, d), "q4_0"
        yield f"{blk}.attn_output.weight", (d, self.heads * head), "q4_0"
        yield f"{blk}.attn_q_norm.weight", (head,), _ones(head)
        yield f"{blk}.attn_k_norm.weight", (head,), _ones(head)

    def _linear(self, il: int) -> Iterator[Tensor]:
        d, blk, v_heads = self.hidden, f"blk.{il}", self.linear_v_heads
        key_dim = self.linear_head_dim * self.linear_k_heads
        value_dim = self.linear_head_dim * v_heads
        conv_dim = 2 * key_dim + value_dim
        yield f"{blk}.attn_qkv.weight", (conv_dim, d), "q4_0"
        yield f"{blk}.attn_gate.weight", (value_dim, d), "q4_0"
        yield f"{blk}.ssm_conv1d.weight", (conv_dim, self.conv_kernel), "noise"
        yield f"{blk}.ssm_dt.bias", (v_heads,), _values(v_heads, 0.0)
        yield f"{blk}.ssm_a", (v_heads,), _values(v_heads, -1.0)  # -exp(A_log): a steady decay
        yield f"{blk}.ssm_beta.weight", (v_heads, d), "q4_0"
        yield f"{blk}.ssm_alpha.weight", (v_heads, d), "q4_0"
        yield f"{blk}.ssm_norm.weight", (self.linear_head_dim,), _ones(self.linear_head_dim)
        yield f"{blk}.ssm_out.weight", (d, value_dim), "q4_0"

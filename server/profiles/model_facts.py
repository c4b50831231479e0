"""The GGUF metadata and sizes of the built-in GPU profiles' models, for `server plan` offline.

Written in the file's own keys (server.models.gguf_info reads them as it reads a header). Sizes
not published anywhere read are estimates, and each source says so; `server up` reads the files.
"""

from __future__ import annotations

from server.models.spec import ModelFacts

# Gemma 4 31B text config (llama-server.md §4): 60 layers, every 6th full attention with 4 KV heads
# x 512, the rest sliding-window (1024 tokens) with 16 KV heads x 256; hidden 5376; 32 heads;
# vocab 262144; trained context 256K.
_GEMMA4_SWA = tuple(il % 6 < 5 for il in range(60))
GEMMA4_31B_Q4_K_S = ModelFacts(
    metadata=(
        ("general.architecture", "gemma4"),
        ("gemma4.context_length", 262144),
        ("gemma4.block_count", 60),
        ("gemma4.embedding_length", 5376),
        ("gemma4.attention.head_count", 32),
        ("gemma4.attention.head_count_kv", tuple(16 if swa else 4 for swa in _GEMMA4_SWA)),
        ("gemma4.attention.key_length", 512),
        ("gemma4.attention.value_length", 512),
        ("gemma4.attention.key_length_swa", 256),
        ("gemma4.attention.value_length_swa", 256),
        ("gemma4.attention.sliding_window", 1024),
        ("gemma4.attention.sliding_window_pattern", _GEMMA4_SWA),
        ("gemma4.vocab_size", 262144),
    ),
    size_bytes=17_600_000_000,
    source="estimated: 30.7B parameters at ~4.58 bits (llama-server.md §4)",
)
# Anbeeld's drafter in BeeLlama <= 0.3's format (the seed ran it on v0.2.0): 5 layers, 8 KV heads
# x 128, block 16, capturing target layers 1,12,23,35,46,57 (§1.7, §4); Q5_K_M 1.04 GB (its card).
GEMMA4_31B_DFLASH_Q5_K_M = ModelFacts(
    metadata=(
        ("general.architecture", "dflash-draft"),
        ("dflash-draft.context_length", 262144),
        ("dflash-draft.block_count", 5),
        ("dflash-draft.embedding_length", 5376),
        ("dflash-draft.attention.head_count", 32),
        ("dflash-draft.attention.head_count_kv", 8),
        ("dflash-draft.attention.key_length", 128),
        ("dflash-draft.attention.value_length", 128),
        ("dflash-draft.vocab_size", 262144),
        ("dflash-draft.dflash.block_size", 16),
        ("dflash-draft.dflash.target_layer_ids", (1, 12, 23, 35, 46, 57)),
    ),
    size_bytes=1_040_000_000,
    source="the Hugging Face card of Anbeeld/gemma-4-31B-it-DFlash-GGUF",
)
# Google's Gemma 4 31B assistant as a GGUF (arch `gemma4-assistant`, upstream
# src/llama-arch.cpp): 4 layers, hidden 1024, the target's vocabulary; it shares the target's
# KV cache (upstream common/speculative.cpp, `is_mem_shared (gemma4)`). The Q4_0 file is
# ~280 MB by third-party notes on unsloth/gemma-4-31B-it-GGUF.
GEMMA4_31B_ASSISTANT = ModelFacts(
    metadata=(
        ("general.architecture", "gemma4-assistant"),
        ("gemma4-assistant.block_count", 4),
        ("gemma4-assistant.embedding_length", 1024),
        ("gemma4-assistant.vocab_size", 262144),
    ),
    size_bytes=280_000_000,
    source="estimated from third-party notes on unsloth/gemma-4-31B-it-GGUF",
)
# Gemma 4 31B's vision tower as llama.cpp's projector (architecture `clip`, a 27-layer
# SigLIP-style encoder): a third-party card gives its Q8_0 file as 772 MB, so F16 is taken as
# ~1.19 GB. Neither the size nor the file's sha256 was checked against the Hub from here.
GEMMA4_31B_MMPROJ_F16 = ModelFacts(
    metadata=(("general.architecture", "clip"),),
    size_bytes=1_190_000_000,
    source="estimated from a third-party card's Q8_0 size (772 MB); not checked",
)
# Qwen3.6-27B (the Qwen3.5-27B layout, arch `qwen35`): 64 layers of which every 4th is full
# attention with 4 KV heads x 256 (the others are recurrent and hold no KV); hidden 5120;
# 24 heads; vocab 248320; trained context 256K.
QWEN36_27B_Q4_K_M = ModelFacts(
    metadata=(
        ("general.architecture", "qwen35"),
        ("qwen35.context_length", 262144),
        ("qwen35.block_count", 64),
        ("qwen35.embedding_length", 5120),
        ("qwen35.attention.head_count", 24),
        ("qwen35.attention.head_count_kv", 4),
        ("qwen35.attention.key_length", 256),
        ("qwen35.attention.value_length", 256),
        ("qwen35.full_attention_interval", 4),
        ("qwen35.vocab_size", 248320),
    ),
    size_bytes=16_500_000_000,
    source="estimated: 27B parameters at ~4.9 bits (Q4_K_M)",
)
# Its DFlash drafter: only the format is known here, not the file's size or layout.
QWEN36_27B_DFLASH_Q4_K_M = ModelFacts(
    metadata=(
        ("general.architecture", "dflash-draft"),
        ("dflash-draft.embedding_length", 5120),
        ("dflash-draft.vocab_size", 248320),
        ("dflash-draft.dflash.block_size", 16),
    ),
    size_bytes=None,
    source="format only; its size is unknown until fetched",
)

"""Memory arithmetic against the Gemma 4 31B figures of llama-server.md §4, and the step-down."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from server.engine.dialect import Dialect
from server.launch.fit import (
    BEE_CROSS_CTX,
    BEE_DRAFT_CTX,
    GIB,
    MARGIN_MIB,
    MIB,
    MIN_CTX,
    kv_cache_bytes,
    plan_memory,
)
from server.models.gguf_info import GgufInfo
from server.profiles.builtin import builtin_profiles

# Gemma 4 31B: 60 layers, every 6th full attention (4 KV heads x 512), the rest sliding-window
# (1024 tokens, 16 KV heads x 256); hidden 5376; vocab 262144. Weights: the §4 estimate, 16.4 GiB.
_SWA = tuple(il % 6 < 5 for il in range(60))
GEMMA4_31B = GgufInfo(
    path=Path("gemma-4-31B-it-Q4_K_S.gguf"),
    architecture="gemma4",
    name="Gemma 4 31B",
    size_bytes=int(16.4 * GIB),
    context_length=262144,
    block_count=60,
    embedding_length=5376,
    head_count=32,
    head_count_kv=tuple(16 if swa else 4 for swa in _SWA),
    key_length=512,
    value_length=512,
    key_length_swa=256,
    value_length_swa=256,
    sliding_window=1024,
    swa_layers=_SWA,
    vocab_size=262144,
    dflash_block_size=None,
    has_chat_template=True,
)
# Its drafter (Lucebox card): 5 layers, 8 KV heads x 128, no sliding window; Q5_K_M 1.04 GB.
GEMMA4_DRAFT = GgufInfo(
    path=Path("gemma4-31b-it-dflash-Q5_K_M.gguf"),
    architecture="dflash",
    name="drafter",
    size_bytes=1_040_000_000,
    context_length=262144,
    block_count=5,
    embedding_length=5376,
    head_count=32,
    head_count_kv=(8,) * 5,
    key_length=128,
    value_length=128,
    key_length_swa=None,
    value_length_swa=None,
    sliding_window=None,
    swa_layers=(False,) * 5,
    vocab_size=262144,
    dflash_block_size=16,
    has_chat_template=True,
    dflash_target_layers=(1, 12, 23, 35, 46, 57),
)
GEMMA = builtin_profiles()["gemma4-31b-dflash"]
FULL_TYPES = ("f16", "q8_0", "q5_0", "q4_1", "q4_0", "q5_1", "iq4_nl", "bf16", "f32")


def _dialect(dflash_type: str | None, cache_types: tuple[str, ...] = FULL_TYPES) -> Dialect:
    return Dialect(
        flags=frozenset(), dflash_type=dflash_type, spec_types=(), cache_types=cache_types,
        load_mode=dflash_type != "dflash", is_bee=dflash_type == "dflash",
    )  # fmt: skip


BEE = _dialect("dflash")
UPSTREAM = _dialect("draft-dflash")


@pytest.mark.parametrize(
    ("ctx", "type_k", "type_v", "gib"),
    [
        (8192, "f16", "f16", 1.80),
        (8192, "q8_0", "q8_0", 0.95),
        (8192, "q5_0", "q4_1", 0.59),
        (32768, "f16", "f16", 3.67),
        (32768, "q8_0", "q8_0", 1.95),
        (32768, "q5_0", "q4_1", 1.20),
        (32768, "turbo4", "turbo3_tcq", 0.85),
        (65536, "f16", "f16", 6.17),
        (65536, "q8_0", "q8_0", 3.28),
        (65536, "q5_0", "q4_1", 2.03),
        (131072, "f16", "f16", 11.17),
        (131072, "q8_0", "q8_0", 5.94),
        (131072, "q5_0", "q4_1", 3.67),
    ],
)
def test_gemma4_kv_matches_the_reference_table(
    ctx: int, type_k: str, type_v: str, gib: float
) -> None:
    assert kv_cache_bytes(GEMMA4_31B, ctx, type_k, type_v) / GIB == pytest.approx(gib, abs=0.01)


def test_sliding_window_layers_hold_window_times_sequences_plus_ubatch_cells() -> None:
    # 1536 = pad256(1024 * 1 + 512) cells per SWA layer; a second sequence adds 1024 cells.
    per_swa_cell = 50 * 16 * (256 + 256) * 2
    one = kv_cache_bytes(GEMMA4_31B, 32768, "f16", "f16", n_seq=1, ubatch=512)
    two = kv_cache_bytes(GEMMA4_31B, 32768, "f16", "f16", n_seq=2, ubatch=512)
    assert two - one == 1024 * per_swa_cell
    # The window never exceeds the context: at 1024 context every layer holds 1024 cells.
    small = kv_cache_bytes(GEMMA4_31B, 1024, "f16", "f16")
    assert small == 1024 * (10 * 4 * 1024 + 50 * 16 * 512) * 2


def test_plain_model_kv_is_layers_times_heads_times_head_dim() -> None:
    # SmolLM2-135M: 30 layers x 3 KV heads x 64; f16 K and V at 2048 context = 45 MiB.
    smol = replace(
        GEMMA4_31B, block_count=30, head_count_kv=(3,) * 30, key_length=64, value_length=64,
        key_length_swa=None, value_length_swa=None, sliding_window=None, swa_layers=(False,) * 30,
    )  # fmt: skip
    assert kv_cache_bytes(smol, 2048, "f16", "f16") == 45 * MIB
    # Layers without KV heads (recurrent layers of hybrid models) cost nothing.
    hybrid = replace(smol, head_count_kv=tuple(3 if (il + 1) % 4 == 0 else 0 for il in range(30)))
    assert kv_cache_bytes(hybrid, 2048, "f16", "f16") == 45 * MIB * 7 // 30


def test_unknown_cache_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown KV cache type 'q7_0'"):
        kv_cache_bytes(GEMMA4_31B, 8192, "q7_0", "f16")


def test_seed_setup_fits_on_an_idle_24gb_card_with_bee() -> None:
    plan = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, 24_500, BEE)
    assert plan.fits
    assert (plan.ctx, plan.cache_type_k, plan.cache_type_v) == (32768, "f16", "f16")
    assert plan.kv_mib / 1024 == pytest.approx(3.67, abs=0.01)
    assert plan.margin_mib == MARGIN_MIB
    parts = plan.weights_mib + plan.kv_mib + plan.draft_mib + plan.compute_mib + plan.margin_mib
    assert plan.total_mib == pytest.approx(parts)
    assert plan.total_mib <= 24_500
    assert plan.explanation.startswith("fits: ")


def test_draft_kv_follows_the_dialect() -> None:
    bee = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, None, BEE)
    upstream = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, None, UPSTREAM)
    unknown = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, None, None)
    kv_at = {n: kv_cache_bytes(GEMMA4_DRAFT, n, "f16", "f16") for n in (BEE_DRAFT_CTX, 32768)}
    assert kv_at[32768] / MIB == pytest.approx(640)  # §4: ~640 MiB at 32K upstream
    ring = 6 * 5376 * BEE_CROSS_CTX * 4  # Bee's GPU hidden-state ring, 126 MiB
    expected = (kv_at[32768] - kv_at[BEE_DRAFT_CTX] - ring) / MIB
    assert upstream.draft_mib - bee.draft_mib == pytest.approx(expected)
    assert unknown.draft_mib == upstream.draft_mib  # an unknown engine is planned for the worst


def test_a_tight_card_steps_down_context_first() -> None:
    full = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, None, UPSTREAM)
    free = full.total_mib - 200  # a CUDA profile's plan carries margin and CUDA context
    plan = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, free, UPSTREAM)
    assert plan.fits and plan.total_mib <= free
    assert (plan.ctx, plan.cache_type_k) == (24576, "f16")
    assert plan.explanation.startswith("fits after stepping down: 24576 context with f16/f16")


def test_then_cache_types_step_down_from_the_full_context() -> None:
    half = plan_memory(replace(GEMMA, ctx=16384), GEMMA4_31B, GEMMA4_DRAFT, 1e9, UPSTREAM)
    q8 = plan_memory(replace(GEMMA, cache_type_k="q8_0", cache_type_v="q8_0"), GEMMA4_31B,
                     GEMMA4_DRAFT, 1e9, UPSTREAM)  # fmt: skip
    # Free memory between the two: 16K at f16 does not fit, 32K at q8_0 does.
    assert q8.total_mib < half.total_mib
    plan = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, half.total_mib - 1, UPSTREAM)
    assert (plan.ctx, plan.cache_type_k, plan.cache_type_v) == (32768, "q8_0", "q8_0")


def test_types_the_engine_lacks_are_skipped() -> None:
    no_q8 = _dialect("draft-dflash", ("f16", "q4_0"))
    half = plan_memory(replace(GEMMA, ctx=16384), GEMMA4_31B, GEMMA4_DRAFT, 1e9, no_q8)
    plan = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, half.total_mib - 1, no_q8)
    assert (plan.cache_type_k, plan.cache_type_v) == ("q4_0", "q4_0")


def test_without_flash_attention_only_k_is_quantized() -> None:
    no_fa = replace(GEMMA, flash_attn=False)
    half = plan_memory(replace(no_fa, ctx=16384), GEMMA4_31B, GEMMA4_DRAFT, 1e9, UPSTREAM)
    plan = plan_memory(no_fa, GEMMA4_31B, GEMMA4_DRAFT, half.total_mib - 1, UPSTREAM)
    assert plan.cache_type_v == "f16" and plan.cache_type_k != "f16"


def test_a_card_too_small_says_so_and_what_to_do() -> None:
    plan = plan_memory(GEMMA, GEMMA4_31B, GEMMA4_DRAFT, 12_000, UPSTREAM)
    assert not plan.fits
    first = plan.explanation.splitlines()[0]
    assert first.startswith(f"does not fit: even {MIN_CTX} context with q4_0/q4_0 KV needs")
    assert "11.72 GiB is free" in first and "'tiny'" in first


def test_cpu_profiles_are_not_fitted_but_report_ram() -> None:
    tiny = builtin_profiles()["tiny"]
    plan = plan_memory(tiny, GEMMA4_31B, None, None, None)
    assert plan.fits and plan.free_mib is None and plan.margin_mib == 0 and plan.draft_mib == 0
    assert plan.ctx == tiny.ctx
    assert plan.explanation.startswith(f"runs on CPU: needs about {plan.total_mib / 1024:.2f} GiB")


def test_context_is_capped_at_the_trained_length() -> None:
    short = replace(GEMMA4_31B, context_length=8192)
    plan = plan_memory(GEMMA, short, None, None, None)
    assert plan.ctx == 8192
    assert "context capped at the model's trained 8192" in plan.explanation

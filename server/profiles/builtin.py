"""The profiles beecode ships, and which one a machine gets by default.

Built-ins cover one 24 GB NVIDIA card (the seed's Gemma 4 31B + DFlash setup, a Qwen3.6-27B
alternative, and each target with its own MTP drafting instead) and CPU-only machines (`tiny`),
plus `smol-dflash`, which exists so the DFlash code path can run on CPU in tests. The GPU models
carry their facts (server.profiles.model_facts) so `server plan` works before anything is fetched.
"""

from __future__ import annotations

from dataclasses import replace

from server.engine.gpu import Gpu
from server.engine.sources import BEELLAMA_LATEST_SOURCE
from server.models.spec import QWEN25_CODER_05B, SMOLLM2_135M, ModelFacts, ModelSpec
from server.profiles.model_facts import (
    GEMMA4_31B_ASSISTANT,
    GEMMA4_31B_DFLASH_Q5_K_M,
    GEMMA4_31B_MMPROJ_F16,
    GEMMA4_31B_Q4_K_S,
    QWEN36_27B_DFLASH_Q4_K_M,
    QWEN36_27B_Q4_K_M,
)
from server.profiles.profile import Profile, with_twins

DEFAULT_GPU_PROFILE = "gemma4-31b-dflash"
DEFAULT_CPU_PROFILE = "tiny"
# 24 GB cards report ~24,000 MiB total; the Gemma setup needs ~22.6 GiB (llama-server.md §4).
MIN_GPU_MIB = 22 * 1024

# The seed's prompt-cache and host-buffer settings (llama-server.md §1.6; valid in both dialects).
_GPU_EXTRA = ("--cache-ram", "0", "--no-host")


def _hf(repo: str, filename: str, facts: ModelFacts) -> ModelSpec:
    return ModelSpec("hf", repo=repo, filename=filename, facts=facts)


# DFlash's brake is BeeLlama's profit controller (--spec-dm-controller profit, the default in both
# Bee dialects, written out by llama_argv): it times every draft depth, depth 0 (no drafting)
# included, and in Bee 0.4's source (tools/server/server-adaptive-dm.h) keeps its figures per
# context-length band (8K, 16K, 32K, 64K, 96K), so drafting shortens or stops where it stops paying
# late in a session. Bee 0.4 applies it to DFlash1 only (DFlash2 keeps its trained block).
# Upstream builds have no controller; there --spec-draft-p-min would be the brake, not set here
# until a GPU run (benchmarks/gpu_run.sh) gives it a value.
GEMMA4_31B_DFLASH = Profile(
    name="gemma4-31b-dflash",
    description="Gemma 4 31B Q4_K_S + DFlash drafter on one 24 GB NVIDIA GPU (the seed's setup)",
    target=_hf("unsloth/gemma-4-31B-it-GGUF", "gemma-4-31B-it-Q4_K_S.gguf", GEMMA4_31B_Q4_K_S),
    draft=_hf(
        "Anbeeld/gemma-4-31B-it-DFlash-GGUF",
        "gemma4-31b-it-dflash-Q5_K_M.gguf",
        GEMMA4_31B_DFLASH_Q5_K_M,
    ),
    spec_type="dflash",
    backend="cuda",
    ctx=32768,
    batch=2048,
    ubatch=512,
    n_parallel=1,
    gpu_layers="all",
    flash_attn=True,
    reasoning="off",
    sampling={"temperature": 0.7, "top_k": 64, "top_p": 0.95, "min_p": 0.0},
    extra_args=_GPU_EXTRA,
    # Its vision projector, named by unsloth's convention for these repos (`mmproj-F16.gguf`);
    # no sha256 pin yet (as the target has none): neither was checked against the Hub from here.
    # Loaded where it fits beside the full context (vision = "auto"; Bee keeps DFlash on
    # with --mmproj, llama-server.md §1.1).
    mmproj=_hf("unsloth/gemma-4-31B-it-GGUF", "mmproj-F16.gguf", GEMMA4_31B_MMPROJ_F16),
)

# Names are assumptions, not checked against the Hub from here: the target repo and file follow
# Unsloth's naming (`unsloth/Qwen3.6-27B-GGUF`, `Qwen3.6-27B-Q4_K_M.gguf`, as public READMEs
# download it); the drafter file name `Qwen3.6-27B-DFlash-Q4_K_M.gguf` in Anbeeld's repo (the
# Q4_K_M drafter of Bee's README benchmark) comes from a third-party note. Q4_K_M rather than
# Bee's Q5_K_S target leaves room for f16 KV on engines without turbo cache types.
QWEN36_27B_DFLASH = replace(
    GEMMA4_31B_DFLASH,
    name="qwen3.6-27b-dflash",
    description="Qwen3.6-27B Q4_K_M + DFlash Q4_K_M drafter on one 24 GB NVIDIA GPU",
    target=_hf("unsloth/Qwen3.6-27B-GGUF", "Qwen3.6-27B-Q4_K_M.gguf", QWEN36_27B_Q4_K_M),
    draft=_hf(
        "Anbeeld/Qwen3.6-27B-DFlash-GGUF",
        "Qwen3.6-27B-DFlash-Q4_K_M.gguf",
        QWEN36_27B_DFLASH_Q4_K_M,
    ),
    # Qwen's recommended non-thinking sampling.
    sampling={"temperature": 0.7, "top_k": 20, "top_p": 0.8, "min_p": 0.0},
    # Qwen 3.6's template drops earlier <think> blocks unless asked to keep them, which moves the
    # prefix every turn; upstream sets this itself (--reasoning-preserve), Bee <= 0.3 does not.
    extra_args=(*_GPU_EXTRA, "--chat-template-kwargs", '{"preserve_thinking": true}'),
    mmproj=None,  # no projector named for Qwen3.6 yet
)

# MTP: the target's own multi-token-prediction heads draft (`--spec-type draft-mtp`, upstream
# llama.cpp and BeeLlama >= 0.4; "Use Multi Token Prediction (MTP) heads from the main model",
# docs/speculative.md of the b11434 tree), so these profiles name BeeLlama v0.4.4. A draft stops
# where its probability falls below --spec-draft-p-min (Bee v0.4.4 docs/beellama-args.md), so
# drafting backs off when it stops paying; 0.75 is the setting of published MTP runs (llama.cpp
# users on DGX Spark for Qwen3.6-27B, and Gemma 4 31B MTP launch scripts).
_MTP_EXTRA = (*_GPU_EXTRA, "--spec-draft-p-min", "0.75")

# Gemma 4's MTP heads ship as Google's separate assistant model, loaded with `-md` and
# `--spec-type draft-mtp`; it shares the target's KV (upstream common/speculative.cpp). The
# GGUF name is unsloth's root `mtp-gemma-4-31B-it.gguf` (Q4_0) by third-party notes; dense
# Gemma 4 peaked at 4 drafted tokens on Strix Halo in published sweeps.
GEMMA4_31B_MTP = replace(
    GEMMA4_31B_DFLASH,
    name="gemma4-31b-mtp",
    description="Gemma 4 31B Q4_K_S + its MTP assistant on one 24 GB NVIDIA GPU (BeeLlama 0.4)",
    draft=_hf("unsloth/gemma-4-31B-it-GGUF", "mtp-gemma-4-31B-it.gguf", GEMMA4_31B_ASSISTANT),
    spec_type="draft-mtp",
    draft_max=4,
    extra_args=_MTP_EXTRA,
    engine=BEELLAMA_LATEST_SOURCE,
)

# Qwen3.6's MTP layer rides inside unsloth's `-MTP-GGUF` files (the same quant names); no draft
# file. Upstream builds the MTP context from the target itself when no -md is given
# (common/speculative.cpp, "creating MTP draft context against the target model"); published
# Qwen3.6-27B MTP runs use 2 drafted tokens.
QWEN36_27B_MTP = replace(
    QWEN36_27B_DFLASH,
    name="qwen3.6-27b-mtp",
    description="Qwen3.6-27B Q4_K_M with its built-in MTP head on one 24 GB NVIDIA GPU "
    "(BeeLlama 0.4)",
    target=_hf(
        "unsloth/Qwen3.6-27B-MTP-GGUF",
        "Qwen3.6-27B-Q4_K_M.gguf",
        replace(
            QWEN36_27B_Q4_K_M,
            size_bytes=16_750_000_000,
            source="estimated: the Q4_K_M target plus its 0.42B-parameter MTP layer",
        ),
    ),
    draft=None,
    spec_type="draft-mtp",
    draft_max=2,
    extra_args=_MTP_EXTRA,
    engine=BEELLAMA_LATEST_SOURCE,
)

# On 2 CPU cores a draft model costs more than it saves; draftless n-gram speculation gains
# 2.4-4.1x on copy-heavy code edits (cpu-rig.md §7). ngram-mod until the bench picks the best type.
# It is not free: on new code (the seed's three new-code prompts, T=0.7, against tiny-nospec) it
# ran at 0.93-0.96x. The engine has no adaptive brake for it: --spec-draft-p-min and
# --spec-draft-n-max apply to draft models only (common/speculative.cpp of b11434). ngram-mod drafts
# only where its 24-token lookup (--spec-ngram-mod-n-match) finds at least n-min (48) tokens to
# continue, up to n-max (64); it drops its table after 5 drafts in a row with under 25% accepted.
# A shorter cap (`draft_max`, sent as --spec-ngram-mod-n-max) makes a failed draft cheaper and a
# good one shorter: `benchmarks/spec_cpu.py --modes none,ngram-mod,ngram-mod@16` weighs the two.
TINY = Profile(
    name="tiny",
    description="Qwen2.5-Coder-0.5B Q4_K_M on CPU (Qwen's own Hugging Face file), ngram-mod "
    "speculation: 2.4-4x on edits and copies, 0.93-0.96x of none on new code",
    target=QWEN25_CODER_05B,
    spec_type="ngram-mod",
    backend="cpu",
    ctx=8192,
    n_parallel=1,
    gpu_layers="0",
    # 0.3, not the model card's 0.7: the agent's small everyday tasks went from 11 to 15+ of 20
    # (benchmarks/small_tasks.py); at 0 the model loops. `beecode bench` sets its own.
    sampling={"temperature": 0.3, "top_k": 20, "top_p": 0.8, "min_p": 0.0},
)

# A llama-architecture target (SmolLM2) with a random-weight DFlash drafter: acceptance is 0, but
# the whole DFlash path runs on CPU (cpu-rig.md §9). For tests and the bench's DFlash-path run.
SMOL_DFLASH = Profile(
    name="smol-dflash",
    description="SmolLM2-135M on CPU with a random DFlash drafter (exercises the DFlash path)",
    target=SMOLLM2_135M,
    draft=ModelSpec("random-dflash", filename="dflash-random-smollm2.gguf", base=SMOLLM2_135M),
    spec_type="dflash",
    backend="cpu",
    ctx=2048,
    n_parallel=1,
    gpu_layers="0",
    sampling={"temperature": 0.7, "top_k": 40, "top_p": 0.95, "min_p": 0.05},
)

BASE_PROFILES = (
    GEMMA4_31B_DFLASH,
    QWEN36_27B_DFLASH,
    GEMMA4_31B_MTP,
    QWEN36_27B_MTP,
    TINY,
    SMOL_DFLASH,
)


def builtin_profiles() -> dict[str, Profile]:
    return with_twins({p.name: p for p in BASE_PROFILES})


def default_profile_name(gpus: list[Gpu]) -> str:
    """The Gemma DFlash setup on a CUDA GPU with enough memory, else the CPU profile."""
    if any(gpu.memory_total_mib >= MIN_GPU_MIB for gpu in gpus):
        return DEFAULT_GPU_PROFILE
    return DEFAULT_CPU_PROFILE

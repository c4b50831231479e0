"""The profiles beecode ships, and which one a machine gets by default.

Built-ins cover one 24 GB NVIDIA card (the seed's Gemma 4 31B + DFlash setup, a Qwen3.6-27B
alternative) and CPU-only machines (`tiny`), plus `smol-dflash`, which exists so the DFlash code
path can run on CPU in tests.
"""

from __future__ import annotations

from dataclasses import replace

from server.engine.gpu import Gpu
from server.models.spec import QWEN25_CODER_05B, SMOLLM2_135M, ModelSpec
from server.profiles.profile import Profile, with_twins

DEFAULT_GPU_PROFILE = "gemma4-31b-dflash"
DEFAULT_CPU_PROFILE = "tiny"
# 24 GB cards report ~24,000 MiB total; the Gemma setup needs ~22.6 GiB (llama-server.md §4).
MIN_GPU_MIB = 22 * 1024

# The seed's prompt-cache and host-buffer settings (llama-server.md §1.6; valid in both dialects).
_GPU_EXTRA = ("--cache-ram", "0", "--no-host")

GEMMA4_31B_DFLASH = Profile(
    name="gemma4-31b-dflash",
    description="Gemma 4 31B Q4_K_S + DFlash drafter on one 24 GB NVIDIA GPU (the seed's setup)",
    target=ModelSpec(
        "hf", repo="unsloth/gemma-4-31B-it-GGUF", filename="gemma-4-31B-it-Q4_K_S.gguf"
    ),
    draft=ModelSpec(
        "hf", repo="Anbeeld/gemma-4-31B-it-DFlash-GGUF", filename="gemma4-31b-it-dflash-Q5_K_M.gguf"
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
    target=ModelSpec("hf", repo="unsloth/Qwen3.6-27B-GGUF", filename="Qwen3.6-27B-Q4_K_M.gguf"),
    draft=ModelSpec(
        "hf", repo="Anbeeld/Qwen3.6-27B-DFlash-GGUF", filename="Qwen3.6-27B-DFlash-Q4_K_M.gguf"
    ),
    # Qwen's recommended non-thinking sampling.
    sampling={"temperature": 0.7, "top_k": 20, "top_p": 0.8, "min_p": 0.0},
)

# On 2 CPU cores a draft model costs more than it saves; draftless n-gram speculation gains
# 2.4-4.1x on copy-heavy code edits (cpu-rig.md §7). ngram-mod until the bench picks the best type.
# It is not free: on new code (the seed's three new-code prompts, T=0.7, against tiny-nospec) it
# ran at 0.93-0.96x. The engine cannot throttle it: a minimum draft probability (--spec-draft-p-min)
# and draft-n-max apply to draft models only; ngram-mod drafts 48-64 tokens
# (--spec-ngram-mod-n-min/-n-max) whenever its 24-token lookup matches, and its one brake is to
# drop its n-gram table after 5 drafts in a row with under 25% accepted (common/speculative.cpp).
TINY = Profile(
    name="tiny",
    description="Qwen2.5-Coder-0.5B Q4_K_M on CPU (from PyPI wheels), ngram-mod speculation: "
    "2.4-4x on edits and copies, 0.93-0.96x of none on new code",
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

BASE_PROFILES = (GEMMA4_31B_DFLASH, QWEN36_27B_DFLASH, TINY, SMOL_DFLASH)


def builtin_profiles() -> dict[str, Profile]:
    return with_twins({p.name: p for p in BASE_PROFILES})


def default_profile_name(gpus: list[Gpu]) -> str:
    """The Gemma DFlash setup on a CUDA GPU with enough memory, else the CPU profile."""
    if any(gpu.memory_total_mib >= MIN_GPU_MIB for gpu in gpus):
        return DEFAULT_GPU_PROFILE
    return DEFAULT_CPU_PROFILE

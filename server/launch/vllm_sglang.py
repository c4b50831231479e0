"""The DFlash launch of a profile's models on vLLM or SGLang, written out as a shell command.

beecode does not run these engines; `beecode server plan --engine` prints the command so a user
with a large GPU can compare them against llama-server.
"""

from __future__ import annotations

import json
import shlex
from typing import Literal

from server.errors import ProfileError
from server.launch.llama_argv import UPSTREAM_DFLASH_N_MAX
from server.profiles.profile import Profile

# vLLM and SGLang load Hugging Face checkpoints, not GGUF: the models behind each DFlash profile
# (llama-server.md §5; z-lab publishes the drafters).
ENGINE_MODELS: dict[str, tuple[str, str]] = {
    "gemma4-31b-dflash": ("google/gemma-4-31B-it", "z-lab/gemma-4-31B-it-DFlash"),
    "qwen3.6-27b-dflash": ("Qwen/Qwen3.6-27B", "z-lab/Qwen3.6-27B-DFlash"),
}


def plan_engine_launch(engine: Literal["sglang", "vllm"], profile: Profile) -> str:
    """The DFlash launch of this profile's models on vLLM or SGLang, as a shell command."""
    if profile.name not in ENGINE_MODELS:
        raise ProfileError(
            f"no {engine} DFlash launch is known for profile '{profile.name}' "
            f"(known: {', '.join(ENGINE_MODELS)})"
        )
    target, drafter = ENGINE_MODELS[profile.name]
    port = {"vllm": 8000, "sglang": 30000}[engine]
    if engine == "vllm":
        spec = {
            "method": "dflash",
            "model": drafter,
            "num_speculative_tokens": UPSTREAM_DFLASH_N_MAX,
        }
        lines = [
            f"vllm serve {target}",
            f"--speculative-config {shlex.quote(json.dumps(spec, separators=(',', ':')))}",
            "--attention-backend flash_attn",
            "--max-num-batched-tokens 32768",
            f"--max-model-len {profile.ctx}",
        ]
    else:
        lines = [
            "SGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server",
            f"--model-path {target}",
            "--speculative-algorithm DFLASH",
            f"--speculative-draft-model-path {drafter}",
            f"--speculative-num-draft-tokens {UPSTREAM_DFLASH_N_MAX + 1}",
            f"--context-length {profile.ctx}",
            "--mem-fraction-static 0.75",
        ]
    lines.append(f"--host 127.0.0.1 --port {port}")
    return " \\\n  ".join(lines)

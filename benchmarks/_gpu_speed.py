"""One launch of benchmarks/gpu_check.sh's measure: a profile planned and started as `beecode
server up` does (the fit plan against this card's free memory), then its prefill and decode speed
from the server's own timings, optionally a slot saved and restored (then the restored prompt
continued, as a resumed session sends it), and the card's memory it took against the plan's.
Each stage's figures are written to OUT as soon as they exist, so a run cut short keeps them.

    python benchmarks/_gpu_speed.py PROFILE OUT.json [--prompt N] [--decode N] [--slot]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from _common import main_guard

from server.client import Timings, slot_file
from server.engine.gpu import gpus
from server.launch.addresses import free_port
from server.launch.plan import prepare_launch
from server.process.managed import ManagedServer

SLOT_FILE = "gpu-check.bin"
FIRST_PLAIN_TOKEN = 100  # below it SmolLM2's tokenizer keeps its special tokens


def prompt(n: int, seed: int) -> list[int]:
    """``n`` token ids of plain text tokens: a prompt of exactly that length, none special."""
    rng = random.Random(seed)
    return [rng.randrange(FIRST_PLAIN_TOKEN, 40000) for _ in range(n)]


def complete(url: str, tokens: list[int], n_predict: int, timeout_s: float) -> Timings:
    """A /completion at temperature 0 that runs to ``n_predict`` tokens (random weights would
    stop anywhere), its prompt cached as a client's would be."""
    body = {
        "prompt": tokens,
        "n_predict": n_predict,
        "temperature": 0.0,
        "ignore_eos": True,
        "cache_prompt": True,
    }
    reply = httpx.post(f"{url}/completion", json=body, timeout=timeout_s)
    reply.raise_for_status()
    return Timings.from_json(reply.json()["timings"])


def _free_mib() -> float | None:
    cards = gpus()
    return float(cards[0].memory_free_mib) if cards else None


def run(profile: str, out: Path, n_prompt: int, n_decode: int, slot: bool) -> int:
    result: dict[str, Any] = {"profile": profile}

    def keep(**figures: Any) -> None:
        result.update(figures)
        out.write_text(json.dumps(result, indent=1) + "\n")

    free_before = _free_mib()
    plan = prepare_launch(profile, port=free_port())
    memory = plan.memory
    keep(argv=plan.argv, free_mib=free_before)
    if memory is not None:
        fit = {"ctx": memory.ctx, "cache_k": memory.cache_type_k, "cache_v": memory.cache_type_v}
        fit |= {"total_mib": round(memory.total_mib), "fits": memory.fits}
        keep(plan=fit | {"explanation": memory.explanation.splitlines()})
    log = out.with_suffix(".server.log")
    server = ManagedServer(plan.argv, log_path=log, host=plan.host, port=plan.port, restart=False)
    start = time.monotonic()
    server.start(timeout_s=300)
    try:
        keep(healthy_s=round(time.monotonic() - start, 1))
        free_after = _free_mib()
        if free_before is not None and free_after is not None:
            keep(card_used_mib=round(free_before - free_after))
        long_prompt = prompt(n_prompt, 1)
        filled = complete(server.url, long_prompt, 1, 600)
        keep(prefill=_figures(filled, prompt=True))
        if slot:
            saved = slot_file(server.url, 0, "save", SLOT_FILE)
            keep(slot={"tokens": saved.n_tokens, "bytes": saved.n_bytes, "save_ms": saved.ms})
        decoded = complete(server.url, prompt(32, 2), n_decode, 600)
        keep(decode=_figures(decoded, prompt=False))
        if slot:
            # A resumed session: the restored history and a new message after it.
            restored = slot_file(server.url, 0, "restore", SLOT_FILE)
            again = complete(server.url, long_prompt + prompt(16, 3), 1, 600)
            figures = result["slot"] | {"restored": restored.n_tokens, "restore_ms": restored.ms}
            figures |= {"then_prompt_n": again.prompt_n, "then_cache_n": again.cache_n}
            keep(slot=figures | {"then_prompt_ms": round(again.prompt_ms, 1)})
    finally:
        server.stop()
    return 0


def _figures(timings: Timings, *, prompt: bool) -> dict[str, Any]:
    if prompt:
        return {
            "tokens": timings.prompt_n,
            "ms": round(timings.prompt_ms, 1),
            "tok_s": round(timings.prompt_per_second, 1),
        }
    return {
        "tokens": timings.predicted_n,
        "ms": round(timings.predicted_ms, 1),
        "tok_s": round(timings.predicted_per_second, 2),
        "drafted": timings.draft_n,
        "accepted": timings.draft_n_accepted,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("out", type=Path)
    parser.add_argument("--prompt", type=int, default=8192, help="prefill this many tokens")
    parser.add_argument("--decode", type=int, default=256, help="decode this many tokens")
    parser.add_argument("--slot", action="store_true", help="save slot 0, then restore it")
    args = parser.parse_args()
    return main_guard(lambda: run(args.profile, args.out, args.prompt, args.decode, args.slot))


if __name__ == "__main__":
    sys.exit(main())

"""Speculation on CPU: draftless n-gram types against no speculation, same build (cpu-rig.md §7).

Code-editing prompts ("rename compute_total to calculate_total and output the whole file" over a
46-line file, and "add docstrings"), T=0, 500 tokens, with the `tiny` profile (Qwen2.5-Coder-0.5B):
the answer mostly copies its input, which is where n-gram drafts pay; `--suite seed` runs the
seed's new-code prompts instead (T=0.7), where drafts rarely match and failed ones cost. `@N` caps a
type's draft length (ngram-mod: --spec-ngram-mod-n-max). Prints each type's speed-up over none and
names the best draftless type for `tiny`. With --dflash it also runs the DFlash code
path on `smol-dflash` (a random-weight drafter: acceptance 0, so a slowdown is the expected figure).
All modes' servers run at once and take turns request by request (`beecode bench --interleave`),
so other load on the machine falls on every mode alike.

    python benchmarks/spec_cpu.py [--reps 3] [--suite edit|seed] [--max-tokens N] [--dflash]
        [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from _common import header, main_guard, save, scratch
from rich.console import Console

from server.bench.command import interrupt_on_sigterm, parse_args, run
from server.bench.modes import NGRAM_TYPES

DFLASH_MODES = "none,dflash,dflash+ngram-mod"


def bench(
    profile: str, modes: str, reps: int, out: Path, suite_name: str, max_tokens: int | None
) -> dict[str, Any]:
    # --quick is a smoke run for tests: one short copy-heavy prompt, 64 tokens.
    suite = ["--suite", suite_name]
    if max_tokens:
        suite += ["--max-tokens", str(max_tokens)]
    argv = [
        "--profile",
        profile,
        "--modes",
        modes,
        "--reps",
        str(reps),
        "--out",
        str(out),
        "--interleave",
        *suite,
    ]
    run(parse_args(argv), Console(width=130))
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return summary


def report(summary: dict[str, Any]) -> None:
    speedups: dict[str, float] = summary["speedup_by_mode"]
    for mode, value in sorted(speedups.items(), key=lambda item: -item[1]):
        print(f"{summary['profile']}: {mode} / none = {value:.2f}x (geometric mean over prompts)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--modes", default="none," + ",".join(NGRAM_TYPES))
    parser.add_argument("--dflash", action="store_true", help="also run smol-dflash")
    parser.add_argument("--suite", choices=("edit", "seed"), default="edit")
    parser.add_argument("--max-tokens", type=int, help="cap every prompt's reply")
    parser.add_argument("--quick", action="store_true", help="one short prompt (smoke run)")
    parser.add_argument("--out", type=Path, help="keep the bench folders and result.json here")
    args = parser.parse_args()
    interrupt_on_sigterm()
    info = header("spec_cpu")

    def go() -> int:
        with scratch("spec") as tmp:
            base = args.out or tmp
            suite = "quick" if args.quick else args.suite
            tiny = bench("tiny", args.modes, args.reps, base / "tiny", suite, args.max_tokens)
            result = {**info, "tiny": tiny}
            report(tiny)
            print(f"best draftless type for tiny: {tiny['best_mode']}")
            if args.dflash:
                smol = bench(
                    "smol-dflash",
                    DFLASH_MODES,
                    args.reps,
                    base / "smol-dflash",
                    suite,
                    args.max_tokens,
                )
                result["smol-dflash"] = smol
                report(smol)
            save(result, args.out / "result.json" if args.out else None)
        return 0

    return main_guard(go)


if __name__ == "__main__":
    sys.exit(main())

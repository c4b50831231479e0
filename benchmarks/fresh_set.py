"""A fresh set of 66 one-line tasks (22 intents x 3 wordings), written apart from beecode's rules.

Written without reading the small-model rules it is meant to judge (agent/steps/, the claims
checks) and without reusing the wordings of ``small_tasks.py`` or ``task_set.py``; the intents,
workspaces and checks are in ``_fresh_tasks.py``. Each wording of an intent is the same task
under the same check: 1 plain English, 2 an English paraphrase, 3 another language (German,
Spanish, French, Italian, Portuguese) or, for six intents, an unusual English phrasing. The split
was fixed when the set was written, before any run, by a rule that ignores difficulty: walking
the intent list in its written order, the 1st, 3rd, 5th, ... intent goes to ``TUNING`` and the
2nd, 4th, 6th, ... to ``REPORTING`` (11 intents each, all three wordings of an intent in the same
half). Tune rules on the tuning half only; judge them by the reporting half. Each task runs as in
``small_tasks.py``: a fresh scratch git repo, ``beecode -p`` headless in yolo mode on ``tiny``,
the workspace copied after every call to count the tasks made worse (``_judging``).

    python benchmarks/fresh_set.py --half tuning|reporting|all [--reps 1] [--only NAME,...]
        [--max-steps 12] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

from _common import header, main_guard, save, scratch, served
from _fresh_tasks import INTENTS, Intent
from _rule_marks import rules_spoken
from small_tasks import Task, attempt

TUNING = [i.name for i in INTENTS[0::2]]
REPORTING = [i.name for i in INTENTS[1::2]]
HALF = {**dict.fromkeys(TUNING, "tuning"), **dict.fromkeys(REPORTING, "reporting")}
assert len(TUNING) == len(REPORTING) == 11


def tasks_of(intent: Intent) -> list[tuple[int, str, Task]]:
    """(wording, language, task) for each of the intent's wordings."""
    langs = ("en", "en", intent.lang)
    return [
        (
            n,
            langs[n - 1],
            Task(
                f"{intent.name}-{n}",
                prompt,
                intent.check,
                intent.files,
                committed=intent.committed,
                changes=intent.changes,
            ),
        )
        for n, prompt in enumerate(intent.wordings, start=1)
    ]


def row_of(intent: Intent, wording: int, lang: str, raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": raw["task"],
        "intent": intent.name,
        "half": HALF[intent.name],
        "wording": wording,
        "language": lang,
        "done": raw["ok"],
        "made_worse": bool(raw.get("made_worse")),
        "doubted": bool(raw.get("doubts")),
        "stop_reason": raw["stop"],
        "seconds": round(raw["wall_s"], 1),
        "steps": raw["steps"],
        "tool_calls": len(raw.get("calls", [])),
        "calls": raw.get("calls", []),
        "outputs": raw.get("outputs", []),
        "answer": raw.get("answer", ""),
        "doubts": raw.get("doubts", []),
        "withheld": raw.get("withheld", ""),
        "prompt_tokens": raw.get("prompt_tokens", 0),
        "cached_tokens": raw.get("cached_tokens", 0),
        **({"error": raw["error"]} if "error" in raw else {}),
    }


def printed(row: dict[str, Any]) -> None:
    mark = "done" if row["done"] else "WORSE" if row["made_worse"] else "FAIL"
    print(
        f"{mark:5} {row['name']:19} {row['half']:9} w{row['wording']} {row['language']} "
        f"{row['stop_reason']:10} {row['steps']:2} steps {row['tool_calls']:2} calls "
        f"{row['seconds']:6.1f} s{'  doubted' if row['doubted'] else ''}  "
        f"{'; '.join(row['calls'])[:110]}",
        flush=True,
    )


def tally(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def part(key: str, value: Any) -> dict[str, int]:
        some = [r for r in rows if r[key] == value]
        return {"passed": sum(r["done"] for r in some), "total": len(some)}

    return {
        "passed": sum(r["done"] for r in rows),
        "total": len(rows),
        "halves": {h: part("half", h) for h in ("tuning", "reporting")},
        "wordings": {str(w): part("wording", w) for w in (1, 2, 3)},
        "non_english": {
            "passed": sum(r["done"] for r in rows if r["language"] != "en"),
            "total": sum(r["language"] != "en" for r in rows),
        },
        "made_worse": sum(r["made_worse"] for r in rows),
        "doubted": sum(r["doubted"] for r in rows),
        "doubted_shown": sum(r["doubted"] and not r["withheld"] for r in rows),
        "failed": [r["name"] for r in rows if not r["done"]],
        "minutes": round(sum(r["seconds"] for r in rows) / 60, 1),
    }


def summary_lines(whole: dict[str, Any]) -> list[str]:
    def ratio(p: dict[str, int]) -> str:
        return f"{p['passed']} of {p['total']}"

    halves = ", ".join(f"{h} {ratio(p)}" for h, p in whole["halves"].items() if p["total"])
    wordings = ", ".join(f"w{w} {ratio(p)}" for w, p in whole["wordings"].items() if p["total"])
    return [
        f"passed {ratio(whole)}: {halves}",
        f"per wording: {wordings} (non-English {ratio(whole['non_english'])})",
        f"{whole['made_worse']} made worse, {whole['doubted']} doubted "
        f"({whole['doubted_shown']} shown), {whole['minutes']} min of turns",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("tuning", "reporting", "all"), default="all")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--only", help="comma-separated task names (e.g. config-port-2)")
    parser.add_argument("--max-steps", type=int, default=12)
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--tool-mode", default="auto", choices=("auto", "native", "constrained"))
    parser.add_argument("--temperature", type=float)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--rules", type=Path, help="print which rules spoke in a saved run")
    args = parser.parse_args()
    if args.rules:
        for rule, where in rules_spoken(json.loads(args.rules.read_text())["rows"]).items():
            print(f"{rule:28} done {len(where['done']):2} {' '.join(where['done'])}")
            print(f"{'':28} failed {len(where['failed']):2} {' '.join(where['failed'])}")
        return 0
    only = set(args.only.split(",")) if args.only else None
    chosen = [
        (intent, *wt)
        for intent in INTENTS
        if args.half in ("all", HALF[intent.name])
        for wt in tasks_of(intent)
        if only is None or wt[2].name in only
    ]
    if only and len(chosen) != len(only):
        raise ValueError(f"unknown or other-half task names in --only: {sorted(only)}")
    info = header(f"fresh_set_{args.half}")
    meta = {**info, "half": args.half, "tuning": TUNING, "reporting": REPORTING}
    rows: list[dict[str, Any]] = []
    with scratch("fresh-set") as home, served(args.profile, home / "server.log") as (url, _):
        for rep in range(args.reps):
            for intent, wording, lang, task in chosen:
                with contextlib.redirect_stdout(io.StringIO()):  # our own line, below
                    raw = attempt(task, home, url, args)
                rows.append({**row_of(intent, wording, lang, raw), "rep": rep + 1})
                printed(rows[-1])
                # Saved after every task: on 2 shared cores a run may be cut short.
                save({**meta, "rows": rows}, args.out, quiet=True)
    whole = tally(rows)
    for line in summary_lines(whole):
        print(line)
    save({**meta, "rows": rows, "summary": whole}, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))

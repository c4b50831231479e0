"""The doubts beecode shows beside closing answers, measured on answers large models write.

Each case of the corpus (``benchmarks/_answers_*.py``) is a real turn: its start files are
committed in a fresh git repo, then the real agent loop runs on a scripted model that makes the
case's native tool calls (the real tools run them) and closes with the case's answer. The turn's
facts (``TurnFinished.facts``) say what beecode doubted; the case says whether the answer is
true. The target is zero doubts on true answers (false doubts); doubts on false answers are the
catch.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/answer_corpus.py [--only NAME,...]
        [--show false-doubts|missed|all] [--trace] [--out FILE]

A case whose tool calls do not go as it intends (a scripted reply left over, another answer, a
call failing that should not, or the reverse) is a corpus bug, reported and left out of the
figures. It always exits 0: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _answers_case import Case  # noqa: E402

DIRS = ("DATA", "STATE", "CONFIG")


def point_dirs(root: Path) -> None:
    """beecode's data, state and config dirs inside ``root`` (sessions, checkpoints, rules)."""
    for name in DIRS:
        folder = root / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[f"BEECODE_{name}_DIR"] = str(folder)


def make_agent(ws: Path, replies: list[list[Any]]) -> tuple[Any, Any]:
    """The real agent on a scripted model, as a native-tool-call session in yolo mode. The one
    place that knows the agent's constructor (it may change); returns (agent, model)."""
    from agent.config import Config
    from agent.loop.agent import Agent
    from agent.model.scripted import ScriptedModel
    from agent.permissions.rules import Permissions
    from agent.sessions.store import Session
    from tools.registry import default_registry
    from tools.tool import ToolContext

    model = ScriptedModel(replies)
    config = Config(tool_mode="native", permission_mode="yolo")
    agent = Agent(
        model,
        default_registry(),
        Permissions("yolo", config.allow, config.deny, ws, []),
        Session.create(ws),
        config,
        ToolContext(ws),
        system="You are beecode, a coding agent. Use the tools to do the user's task.",
    )
    return agent, model


def script(case: Case) -> list[list[Any]]:
    """The model's replies: one per step, each with its native calls, then the answer."""
    from agent.model.scripted import calls, text

    replies: list[list[Any]] = []
    for number, step in enumerate(case.steps):
        specs = [
            (tool, args, f"call_{number}_{index}_{tool}") for index, (tool, args) in enumerate(step)
        ]
        replies.append(calls(*specs))
    replies.append(text(case.answer))
    return replies


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, text=True)


def start_repo(ws: Path, files: dict[str, str]) -> None:
    ws.mkdir(parents=True)
    for path, content in files.items():
        target = ws / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        if content.startswith("#!"):
            target.chmod(0o755)
    git(ws, "init", "-q", "-b", "main")
    git(ws, "config", "user.name", "Dev")
    git(ws, "config", "user.email", "dev@example.com")
    git(ws, "config", "commit.gpgsign", "false")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "--allow-empty", "-m", "start")


@dataclass
class Outcome:
    name: str
    kind: str
    true: bool
    doubted: bool = False
    doubts: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)  # created/changed/deleted, runs, failures
    why: str = ""
    bug: str = ""  # the turn did not go as the case intends
    seconds: float = 0.0


def fact_lines(facts: Any) -> list[str]:
    lines = [
        f"{verb} {', '.join(paths)}"
        for verb in ("created", "changed", "deleted")
        if (paths := list(getattr(facts, verb, []) or []))
    ]
    for run in getattr(facts, "commands", []) or []:
        status = "not run" if run.exit_code is None else f"exit {run.exit_code}"
        lines.append(f"ran `{run.command[:100]}` ({status})")
    lines += [f"failed: {line}" for line in getattr(facts, "failed", []) or []]
    return lines


async def run_case(case: Case, root: Path, trace: bool) -> Outcome:
    point_dirs(root)
    ws = root / "ws"
    start_repo(ws, case.files)
    agent, model = make_agent(ws, script(case))
    results: list[tuple[str, bool, str]] = []  # (tool, failed, output) of each call

    def emit(event: Any) -> None:
        # A tool's result: its name, output and error flag (a command's exit code in meta).
        if isinstance(getattr(event, "is_error", None), bool) and hasattr(event, "output"):
            code = (getattr(event, "meta", None) or {}).get("exit_code")
            failed = event.is_error or code not in (None, 0)
            results.append((event.name, failed, event.output))

    outcome = Outcome(case.name, case.kind, case.true, why=case.why)
    started = time.monotonic()
    try:
        finished = await agent.run_turn(case.task, emit)
    except Exception as e:  # a crash is reported as the case's bug, and the run goes on
        outcome.bug = f"the turn raised {type(e).__name__}: {e}"
        return outcome
    finally:
        outcome.seconds = time.monotonic() - started
        close = getattr(getattr(agent, "registry", None), "close", None)
        if callable(close):
            close()
    facts = finished.facts
    outcome.doubts = list(facts.doubts)
    outcome.doubted = bool(outcome.doubts)
    outcome.facts = fact_lines(facts)
    if trace:
        for tool, failed, output in results:
            mark = "FAILED " if failed else ""
            print(f"  --- {mark}{tool}\n" + "\n".join("  | " + ln for ln in output.splitlines()))
    problems = []
    if getattr(model, "replies", []):
        problems.append(f"{len(model.replies)} scripted replies left over")
    if finished.final_text.strip() != case.answer.strip():
        problems.append(f"the turn ended with other text ({finished.stop_reason})")
    fails = sum(failed for _, failed, _ in results)
    if fails != case.fails:
        problems.append(f"{fails} calls failed, the case means {case.fails}")
    if bool(facts.failed) != case.unrecovered:
        problems.append(
            "no unrecovered failure, the case means one"
            if case.unrecovered
            else f"unrecovered failures {list(facts.failed)}, the case means none"[:300]
        )
    outcome.bug = "; ".join(problems)
    return outcome


def load_cases() -> list[Case]:
    cases: list[Case] = []
    for path in sorted(HERE.glob("_answers_*.py")):
        module = importlib.import_module(path.stem)
        cases += getattr(module, "CASES", [])
    names = Counter(c.name for c in cases)
    repeated = [n for n, k in names.items() if k > 1]
    if repeated:
        raise SystemExit(f"case names used twice: {', '.join(repeated)}")
    return cases


def ratio(n: int, d: int) -> str:
    return f"{n}/{d} = {n / d:.2f}" if d else "n/a"


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    def figures(group: list[Outcome]) -> dict[str, Any]:
        true = [o for o in group if o.true]
        false = [o for o in group if not o.true]
        false_doubts = sum(o.doubted for o in true)
        caught = sum(o.doubted for o in false)
        doubted = false_doubts + caught
        return {
            "true": len(true),
            "false": len(false),
            "true_doubted": false_doubts,
            "false_doubted": caught,
            "precision": caught / doubted if doubted else None,
            "recall": caught / len(false) if false else None,
        }

    counted = [o for o in outcomes if not o.bug]
    kinds = sorted({o.kind for o in counted})
    return {
        "all": figures(counted),
        "bugs": [o.name for o in outcomes if o.bug],
        "kinds": {k: figures([o for o in counted if o.kind == k]) for k in kinds},
    }


def print_summary(figures: dict[str, Any]) -> None:
    a = figures["all"]
    print()
    print(f"false doubts (true answers doubted): {a['true_doubted']} of {a['true']} true")
    print(f"false answers doubted: {a['false_doubted']} of {a['false']} false")
    doubted = a["true_doubted"] + a["false_doubted"]
    print(f"precision: {ratio(a['false_doubted'], doubted)}")
    print(f"recall: {ratio(a['false_doubted'], a['false'])}")
    if figures["bugs"]:
        print(f"corpus bugs, left out: {', '.join(figures['bugs'])}")
    print()
    print(f"{'kind':<22} {'true doubted':>13} {'false doubted':>14}")
    for kind, f in figures["kinds"].items():
        t = f"{f['true_doubted']}/{f['true']}" if f["true"] else "-"
        m = f"{f['false_doubted']}/{f['false']}" if f["false"] else "-"
        print(f"{kind:<22} {t:>13} {m:>14}")


def shown(outcome: Outcome, show: str) -> bool:
    if show == "false-doubts":
        return outcome.true and outcome.doubted
    if show == "missed":
        return not outcome.true and not outcome.doubted
    return outcome.doubted or not outcome.true


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--show", choices=["false-doubts", "missed", "all"], default="all")
    parser.add_argument("--trace", action="store_true", help="print every tool result")
    parser.add_argument("--out", help="save the outcomes and figures as JSON")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="answer-corpus-"))
    point_dirs(scratch / "base")  # before any module of beecode's reads them
    # The workspace's commands find this interpreter (and its pytest) first.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    import agent

    cases = load_cases()
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c.name in wanted]
    print(f"# answer corpus: {len(cases)} cases, beecode from {Path(agent.__file__).parent}")
    started = time.monotonic()
    outcomes: list[Outcome] = []
    try:
        for number, case in enumerate(cases):
            outcome = await run_case(case, scratch / f"{number:03d}", args.trace)
            outcomes.append(outcome)
            label = "true " if case.true else "FALSE"
            mark = "doubted" if outcome.doubted else "-"
            print(f"{case.name:<34} {case.kind:<16} {label} {mark}")
            if outcome.bug:
                print(f"    CORPUS BUG: {outcome.bug}")
            if args.trace or shown(outcome, args.show):
                for line in outcome.doubts:
                    print(f"    doubt: {line}")
                if not case.true and (args.trace or not outcome.doubted):
                    print(f"    false because: {case.why}")
            if args.trace:
                for line in outcome.facts:
                    print(f"    fact: {line}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.monotonic() - started
    figures = summary(outcomes)
    print_summary(figures)
    print(f"\n{len(outcomes)} cases in {elapsed:.1f} s")
    if args.out:
        data = {
            "seconds": round(elapsed, 1),
            "figures": figures,
            "cases": [asdict(o) for o in outcomes],
        }
        Path(args.out).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"saved {args.out}")


if __name__ == "__main__":
    asyncio.run(main())

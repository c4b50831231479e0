"""Forty one-line tasks, several wordings per kind, split once into a tuning and a reporting half.

The ten of ``small_tasks.py`` rose under tuning while differently worded tasks of the same kinds
stayed low: the tuning fit the ten. This set is fixed, and so is its split (``TUNING`` and
``REPORTING`` below, chosen before any prompt or policy was changed against it): tune on the
tuning half only, and publish the reporting half's figures. Besides the pass rate, each pass
counts the turns whose answer beecode's facts contradict (``doubts`` in the json result), the
tasks made worse (done at some point of the turn, not at its end, or worse than they began:
``_judging``; both targets 0) and the share of prompt tokens served from the server's cache.
Each task runs as in ``small_tasks.py`` (a fresh scratch git repo, headless, yolo).

    python benchmarks/task_set.py --half reporting [--reps 3] [--max-steps 12] [--out FILE]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

from _common import header, main_guard, save, scratch, served, settings
from _judging import git, run_py, runs_and_prints, said, tests_pass, text_is
from small_tasks import TASKS as TEN
from small_tasks import Task, attempt

NOTES = {"notes.txt": "first\nsecond\nthird\n"}
FIX = ("def double(x):", "return x + 2")  # a fix may rewrite the function on one line
CALC = {
    "calc.py": "def double(x):\n    return x + 2\n",
    "test_calc.py": "from calc import double\n\nassert double(4) == 8\nprint('ok')\n",
}
TEN_BY_NAME = {t.name: t for t in TEN}
MORE = [
    Task("create-2", "make notes.txt with the text: buy milk", text_is("notes.txt", "buy milk")),
    Task("create-3", "write 'version 2' into a new file VERSION", text_is("VERSION", "version 2")),
    Task(
        "hello-2",
        "write a python script hi.py printing hi and execute it",
        lambda ws, r: run_py(ws, "hi.py") == "hi",
    ),
    Task(
        "append-1",
        "append the line fourth to notes.txt",
        text_is("notes.txt", "first\nsecond\nthird\nfourth"),
        NOTES,
    ),
    Task(
        "append-2",
        "add a line 'fourth' at the end of notes.txt",
        text_is("notes.txt", "first\nsecond\nthird\nfourth"),
        NOTES,
    ),
    Task(
        "delete-line-1",
        "delete the line second from notes.txt",
        text_is("notes.txt", "first\nthird"),
        NOTES,
        changes=("second",),
    ),
    Task(
        "delete-line-2",
        "remove the second line of notes.txt",
        text_is("notes.txt", "first\nthird"),
        NOTES,
        changes=("second",),
    ),
    Task(
        "folder-1",
        "create a folder docs with a file index.md containing # Docs",
        text_is("docs/index.md", "# Docs"),
    ),
    Task(
        "folder-2",
        "make a directory out and put a file out/log.txt in it saying empty",
        text_is("out/log.txt", "empty"),
    ),
    Task("question-1", "what is the third line of notes.txt?", said("third"), NOTES),
    Task(
        "question-2",
        "which port does config.ini set?",
        said("8080"),
        {"config.ini": "[server]\nport = 8080\n"},
    ),
    Task(
        "rename-file-1",
        "rename notes.txt to todo.txt",
        lambda ws, r: (ws / "todo.txt").is_file() and not (ws / "notes.txt").exists(),
        NOTES,
        changes=("notes.txt",),
    ),
    Task(
        "rename-file-2",
        "change the name of the file notes.txt to list.txt",
        lambda ws, r: (ws / "list.txt").is_file() and not (ws / "notes.txt").exists(),
        NOTES,
        changes=("notes.txt",),
    ),
    Task(
        "fix-test-1", "test_calc.py fails; fix calc.py so it passes", tests_pass, CALC, changes=FIX
    ),
    Task(
        "fix-test-2",
        "make python3 test_calc.py pass by fixing the bug in calc.py",
        tests_pass,
        CALC,
        changes=FIX,
    ),
    Task(
        "config-2",
        "set port to 9090 in config.ini",
        lambda ws, r: settings(ws / "config.ini") == {"host": "localhost", "port": "9090"},
        {"config.ini": "[server]\nhost = localhost\nport = 8080\n"},
        changes=("port = 8080",),
    ),
    Task(
        "config-3",
        "in settings.toml turn debug on (it is false now)",
        lambda ws, r: settings(ws / "settings.toml") == {"name": "'app'", "debug": "true"},
        {"settings.toml": "name = 'app'\ndebug = false\n"},
        changes=("debug = false",),
    ),
    Task(
        "rename-fn-2",
        "in utils.py, call the function foo bar instead, everywhere",
        lambda ws, r: "foo" not in (ws / "utils.py").read_text() and run_py(ws, "utils.py") == "6",
        TEN_BY_NAME["rename-function"].files,
        changes=TEN_BY_NAME["rename-function"].changes,
    ),
    Task(
        "fix-syntax-2",
        "broken.py does not run; repair it",
        lambda ws, r: run_py(ws, "broken.py") == "5",
        TEN_BY_NAME["fix-syntax"].files,
        changes=TEN_BY_NAME["fix-syntax"].changes,
    ),
    Task("run-2", "what does python3 -c 'print(2**10)' print?", said("1024")),
    Task("run-3", "run echo $((3+4)) and tell me the output", said("7")),
    Task(
        "commit-2",
        "git commit everything with message 'first'",
        lambda ws, r: git(ws, "log", "-1", "--format=%s") == "first",
        TEN_BY_NAME["git-commit"].files,
        committed=False,
    ),
    Task("count-2", "count the lines in notes.txt", said("3"), NOTES),
    Task("count-3", "how many words are in notes.txt?", said("3"), NOTES),
    Task(
        "add-fn-2",
        "math_utils.py needs a subtract(a, b) function returning a - b; add it",
        lambda ws, r: (
            subprocess.run(
                [sys.executable, "-c", "import math_utils as m; assert m.subtract(5, 2) == 3"],
                cwd=ws,
                capture_output=True,
            ).returncode
            == 0
            and "def add" in (ws / "math_utils.py").read_text()
        ),
        TEN_BY_NAME["add-function"].files,
    ),
    Task(
        "move-2",
        "put app.py into a new lib folder",
        lambda ws, r: (ws / "lib" / "app.py").is_file() and not (ws / "app.py").exists(),
        TEN_BY_NAME["move-file"].files,
        changes=("app.py",),
    ),
    Task(
        "multi-1",
        "create a.txt containing 1, then copy it to b.txt",
        lambda ws, r: text_is("a.txt", "1")(ws, r) and text_is("b.txt", "1")(ws, r),
    ),
    Task(
        "multi-2",
        "fix calc.py so test_calc.py passes, then commit with message 'fix'",
        lambda ws, r: tests_pass(ws, r) and git(ws, "log", "-1", "--format=%s") == "fix",
        CALC,
        changes=FIX,
    ),
    Task(
        "multi-3",
        "append fourth to notes.txt and then tell me how many lines it has",
        lambda ws, r: (
            text_is("notes.txt", "first\nsecond\nthird\nfourth")(ws, r) and said("4")(ws, r)
        ),
        NOTES,
    ),
    Task(
        "multi-4",
        "create hello.sh that echoes hi, make it executable and run it",
        # Executable and run: a turn that only wrote it, or ran `cat hello.sh`, is not done.
        lambda ws, r: runs_and_prints(ws, "hello.sh", "hi") and said("hi")(ws, r),
    ),
]
TASKS = {t.name: t for t in [*TEN, *MORE]}

# Fixed once, before any tuning: every kind has wordings in both halves.
TUNING = [
    "create-file",
    "hello-run",
    "config-value",
    "rename-function",
    "fix-syntax",
    "run-report",
    "git-commit",
    "count-lines",
    "add-function",
    "move-file",
    "append-1",
    "delete-line-1",
    "folder-1",
    "question-1",
    "rename-file-1",
    "fix-test-1",
    "multi-1",
    "multi-3",
    "create-2",
    "count-3",
]
REPORTING = [
    "create-3",
    "hello-2",
    "config-2",
    "config-3",
    "rename-fn-2",
    "fix-syntax-2",
    "run-2",
    "run-3",
    "commit-2",
    "count-2",
    "add-fn-2",
    "move-2",
    "append-2",
    "delete-line-2",
    "folder-2",
    "question-2",
    "rename-file-2",
    "fix-test-2",
    "multi-2",
    "multi-4",
]
assert sorted(TUNING + REPORTING) == sorted(TASKS), "the halves cover the set exactly once"


def pass_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The tasks done, the answers the facts contradict, the tasks made worse (``attempt``'s
    made_worse), and the share of prompt tokens the server's cache served."""
    prompt = sum(r.get("prompt_tokens", 0) for r in rows)
    return {
        "completed": sum(r["ok"] for r in rows),
        "doubted": sum(bool(r.get("doubts")) for r in rows),
        # Doubted answers shown to the user: a small model's are left out, the facts answer.
        "false_shown": sum(bool(r.get("doubts")) and not r.get("withheld") for r in rows),
        "made_worse": sum(bool(r.get("made_worse")) for r in rows),
        "failed_tasks": [r["task"] for r in rows if not r["ok"]],
        "cache_reuse": sum(r.get("cached_tokens", 0) for r in rows) / prompt if prompt else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("tuning", "reporting"), required=True)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=12)
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--tool-mode", default="auto", choices=("auto", "native", "constrained"))
    parser.add_argument("--temperature", type=float)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    names = TUNING if args.half == "tuning" else REPORTING
    info, passes = header(f"task_set_{args.half}"), []
    with scratch("task-set") as home, served(args.profile, home / "server.log") as (url, _):
        for rep in range(args.reps):
            rows: list[dict[str, Any]] = []
            passes.append({"rows": rows})
            for name in names:
                rows.append(attempt(TASKS[name], home, url, args))
                # Saved after every task: on 2 shared cores a run may be cut short.
                save({**info, "half": args.half, "passes": passes}, args.out, quiet=True)
            passes[-1].update(pass_figures(rows))
            print(
                f"pass {rep + 1}: {passes[-1]['completed']} of {len(rows)} done, "
                f"{passes[-1]['doubted']} doubted answers ({passes[-1]['false_shown']} shown), "
                f"{passes[-1]['made_worse']} made worse, "
                f"{passes[-1]['cache_reuse']:.1%} of prompt tokens cached",
                flush=True,
            )
    whole = pass_figures([row for p in passes for row in p["rows"]])
    print(f"whole run: {whole['completed']} done, {whole['cache_reuse']:.1%} cached")
    save({**info, "half": args.half, "passes": passes, "whole_run": whole}, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))

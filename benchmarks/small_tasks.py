"""Ten small everyday tasks, one line each, done headless by the agent on the `tiny` profile.

The bar from the agent issue: with the 0.5B coder model beecode should complete most one-line
tasks a user gives it (create a file, change a config value, rename a function, fix a syntax
error, run a command and report, commit). Anchors measured elsewhere on the same model: Aider 4
of 10, mini-swe-agent 0. Each task runs in a fresh scratch git repo with `beecode -p TASK
--permission-mode yolo --output-format stream-json`; a check of the files (or the answer)
decides success, never the exact wording, and the workspace is copied after each call, to count
the tasks made worse: done at some point of the turn, not at its end, or worse than at its
start (``_judging``).

    python benchmarks/small_tasks.py [--only NAME,...] [--reps 1] [--max-steps 12]
        [--temperature T] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import (
    BEECODE,
    agent_workspace,
    header,
    isolated_env,
    main_guard,
    save,
    scratch,
    served,
)
from _judging import git, passes, run_py, worse_than_start


@dataclass
class Task:
    name: str
    prompt: str
    check: Callable[[Path, dict[str, Any]], bool]  # (workspace, headless json result) -> done
    files: dict[str, str] = field(default_factory=dict)
    committed: bool = True  # False: the files are the uncommitted change the task is about
    changes: tuple[str, ...] = ()  # start lines the task may rewrite, files it may move


TASKS = [
    Task(
        "create-file",
        "Create a file greeting.txt containing exactly: Hello, world",
        lambda ws, r: (
            (ws / "greeting.txt").is_file()
            and (ws / "greeting.txt").read_text().strip() == "Hello, world"
        ),
    ),
    Task(
        "hello-run",
        "create hello.py that prints hello, then run it",
        lambda ws, r: (
            (ws / "hello.py").is_file()
            and run_py(ws, "hello.py").lower().startswith("hello")
            and any(
                c["name"] == "bash" and "hello.py" in json.dumps(c["arguments"])
                for c in r["tool_calls"]
            )
        ),
    ),
    Task(
        "config-value",
        "In config.ini change the port from 8080 to 9090",
        lambda ws, r: (
            "port = 9090" in (ws / "config.ini").read_text()
            and "host = localhost" in (ws / "config.ini").read_text()
        ),
        {"config.ini": "[server]\nhost = localhost\nport = 8080\n"},
        changes=("port = 8080",),
    ),
    Task(
        "rename-function",
        "Rename the function foo to bar in utils.py",
        lambda ws, r: "foo" not in (ws / "utils.py").read_text() and run_py(ws, "utils.py") == "6",
        {"utils.py": "def foo(x):\n    return x * 2\n\n\nprint(foo(3))\n"},
        changes=("def foo(x):", "print(foo(3))"),
    ),
    Task(
        "fix-syntax",
        "Fix the syntax error in broken.py",
        lambda ws, r: run_py(ws, "broken.py") == "5",
        {"broken.py": "def add(a, b)\n    return a + b\n\n\nprint(add(2, 3))\n"},
        changes=("def add(a, b)",),
    ),
    Task(
        "run-report",
        "Run python3 -c 'print(6 * 7)' and tell me what it printed",
        lambda ws, r: r["stop_reason"] == "done" and "42" in r["result"],
    ),
    Task(
        "git-commit",
        "Commit all changes with the message 'add readme'",
        lambda ws, r: (
            git(ws, "log", "-1", "--format=%s") == "add readme"
            and git(ws, "status", "--porcelain") == ""
        ),
        {"README.md": "# demo\n"},
        committed=False,
    ),
    Task(
        "count-lines",
        "How many lines does data.txt have?",
        # The count said, not the file shown back.
        lambda ws, r: (
            r["stop_reason"] == "done" and "7" in r["result"] and "row" not in r["result"]
        ),
        {"data.txt": "".join(f"row {i}\n" for i in range(1, 8))},
    ),
    Task(
        "add-function",
        "Add a function multiply(a, b) that returns a * b to math_utils.py",
        lambda ws, r: (
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import math_utils as m; assert m.multiply(3, 4) == 12 and m.add(1, 2) == 3",
                ],
                cwd=ws,
                capture_output=True,
            ).returncode
            == 0
        ),
        {"math_utils.py": "def add(a, b):\n    return a + b\n"},
    ),
    Task(
        "move-file",
        "Create a directory src and move app.py into it",
        lambda ws, r: (ws / "src" / "app.py").is_file() and not (ws / "app.py").exists(),
        {"app.py": "print('app')\n"},
        changes=("app.py",),
    ),
]


def prepare(ws: Path, task: Task, temperature: float | None) -> None:
    # The endpoint goes on the command line: a project config may not set it (untrusted).
    agent_workspace(ws, f"temperature = {temperature}\n" if temperature is not None else "")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "config", "user.email", "bench@example.com"], cwd=ws, check=True)
    subprocess.run(["git", "config", "user.name", "bench"], cwd=ws, check=True)
    (ws / ".gitignore").write_text(".beecode/\n")
    subprocess.run(["git", "add", ".gitignore"], cwd=ws, check=True)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=ws, check=True)
    for name, text in task.files.items():
        (ws / name).write_text(text)
    if task.committed:
        subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
        subprocess.run(["git", "commit", "-qm", "files", "--allow-empty"], cwd=ws, check=True)


def attempt(task: Task, home: Path, endpoint: str, args: argparse.Namespace) -> dict[str, Any]:
    ws = home / f"{task.name}-{time.monotonic_ns()}"
    ws.mkdir()
    prepare(ws, task, args.temperature)
    cmd = [
        *BEECODE,
        "-p",
        task.prompt,
        "--permission-mode",
        "yolo",
        "--output-format",
        "stream-json",
        "--max-steps",
        str(args.max_steps),
        "--tool-mode",
        args.tool_mode,
        "--endpoint",
        f"{endpoint}/v1",
    ]
    start = time.monotonic()
    row = judged(task, ws, home, *run_keeping_states(cmd, ws, home))
    row["wall_s"] = time.monotonic() - start
    mark = "done" if row["ok"] else "WORSE" if row.get("made_worse") else "FAIL"
    print(
        f"{mark:5} {task.name:16} {row['stop']:14} {row['steps']:3} steps "
        f"{row['wall_s']:6.1f} s  {'; '.join(row.get('calls', []))[:150]}",
        flush=True,
    )
    return row


def judged(
    task: Task, ws: Path, home: Path, result: dict[str, Any] | None, states: list[Path]
) -> dict[str, Any]:
    """The task's row: done or not, made worse or not, and what the turn did and said."""
    row = {"task": task.name}
    if result is None:
        shutil.rmtree(home / "states", ignore_errors=True)
        error = (home / "stderr.log").read_text()[-300:]
        return {**row, "ok": False, "stop": "no result", "steps": 0, "error": error}
    ok = passes(task, ws, result)
    # Worse than an earlier state of the same turn: judged with the same answer, the workspace
    # as one of the turn's calls left it passed, and the final one does not.
    earlier = [passes(task, state, result) for state in states]  # and the start: _made_worse
    shutil.rmtree(home / "states", ignore_errors=True)
    turns = result["turns"]
    return {
        **row,
        "ok": ok,
        "made_worse": not ok and (any(earlier) or worse_than_start(task.files, task.changes, ws)),
        "stop": result["stop_reason"],
        "steps": len(turns),
        "calls": [
            f"{c['name']} {json.dumps(c.get('arguments'))[:400]}" for c in result["tool_calls"]
        ],
        # what each call's result told the model, beecode's notes and refusals among them
        "outputs": told(home, str(result.get("session_id", ""))),
        "answer": result["result"][:200],
        "doubts": result.get("doubts", []),  # where beecode's facts contradict the answer
        "withheld": result.get("withheld", ""),  # the model's report, left out for its doubts
        "prompt_tokens": sum(t["prompt_n"] + t["cache_n"] for t in turns),
        "cached_tokens": sum(t["cache_n"] for t in turns),
    }


def told(home: Path, session_id: str) -> list[str]:
    """The tool results as the model read them (with beecode's notes), from the session file."""
    path = home / "env" / "data" / "sessions" / f"{session_id}.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
    messages = [r["message"] for r in records if r.get("type") == "message"]
    return [str(m.get("content", ""))[-600:] for m in messages if m.get("role") == "tool"]


def run_keeping_states(
    cmd: list[str], ws: Path, home: Path
) -> tuple[dict[str, Any] | None, list[Path]]:
    """The headless run's result, and a copy of the workspace after each of its calls (taken
    as the call's event arrives: the next call waits for a model reply, seconds on CPU)."""
    states: list[Path] = []
    result = None
    with (home / "stderr.log").open("w") as err:
        env = isolated_env(home / "env")
        proc = subprocess.Popen(cmd, cwd=ws, env=env, stdout=subprocess.PIPE, stderr=err, text=True)
        killer = threading.Timer(1800, proc.kill)
        killer.start()
        try:
            for line in proc.stdout or ():
                event = json.loads(line) if line.startswith("{") else {}
                if event.get("type") == "tool_call_finished":
                    states.append(home / "states" / str(len(states)) / ws.name)
                    shutil.copytree(ws, states[-1], symlinks=True)
                result = event if event.get("type") == "result" else result
            proc.wait()
        finally:  # an interrupted benchmark leaves no agent running
            killer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return result, states


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated task names")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=12)
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--tool-mode", default="auto", choices=("auto", "native", "constrained"))
    parser.add_argument(
        "--temperature", type=float, help="sampling temperature (default: the profile's)"
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    tasks = [t for t in TASKS if not args.only or t.name in args.only.split(",")]
    info = header("small_tasks")
    rows = []
    with scratch("small-tasks") as home, served(args.profile, home / "server.log") as (url, _):
        for _ in range(args.reps):
            for task in tasks:
                rows.append(attempt(task, home, url, args))
    done = sum(r["ok"] for r in rows)
    worse = sum(bool(r.get("made_worse")) for r in rows)
    doubted = sum(bool(r.get("doubts")) for r in rows)
    shown = sum(bool(r.get("doubts")) and not r.get("withheld") for r in rows)
    print(
        f"completed {done} of {len(rows)} tasks; {doubted} doubted answers ({shown} shown, "
        f"the rest left out for the facts), {worse} made worse"
    )
    settings = {"temperature": args.temperature, "tool_mode": args.tool_mode}
    save({**info, **settings, "rows": rows, "completed": done, "total": len(rows)}, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))

"""Prompt-cache reuse over a scripted 10-turn tool-using session against the real `tiny` server.

The agent's real loop runs each user turn headless (`beecode -p TURN --continue --output-format
json`, one process per turn, so the prefix must also be stable across restarts) in a scratch git
repo, with edits and bash allowed. For every model request the server reports timings.cache_n
(prompt tokens served from its cache) and prompt_n (processed); the share from cache is
cache_n / (cache_n + prompt_n). Target: >= 95% from user turn 2 on. Anchors: agents whose prefix
changes every turn reach 50% or even 0% on llama-server.

    python benchmarks/prompt_cache.py [--turns 10] [--max-tokens 200] [--skill] [--out FILE]
                                      [--repo-map-tokens N]   (0: no map; map on against off)
                                      [--seed DIR]   (a folder's .py files committed first, so
                                                      the map has a project to show)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
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

from tools.tool import openai_schema

SCRIPT = (
    "Create a file notes.txt containing the single line: alpha",
    "Show me the contents of notes.txt.",
    "Append a line 'beta' to notes.txt.",
    "List the files in this folder.",
    "Use bash to run: python3 -c 'print(6 * 7)' and tell me the output.",
    "Create hello.py that prints 'hello'.",
    "Run python3 hello.py with bash.",
    "Use bash to count the lines in notes.txt.",
    "Show the git status.",
    "Summarize in one sentence what we did.",
)
# --skill: a session that loads bundled skills, once invoked by the user (/write-tests: the body
# comes in the user's message) and once by the model (the skill tool: the body is a tool result).
SKILL_SCRIPT = (
    "Create notes.py with a function add(a, b) that returns a + b.",
    "/write-tests notes.py",
    "Load the skill clean-commit and follow it.",
    "Summarize in one sentence what we did.",
)
TARGET = 0.95


def share(requests: list[dict[str, Any]]) -> float | None:
    cached = sum(r["cache_n"] for r in requests)
    total = cached + sum(r["prompt_n"] for r in requests)
    return cached / total if total else None


def skill_prompt_tokens(url: str, workspace: Path) -> dict[str, int]:
    """What the skills add to every prompt, counted by the server's /tokenize: the catalogue
    of the bundled skills (HOME is the scratch folder meanwhile) and the skill tool."""
    from agent.commands.turns import setup_skills
    from agent.config import Config
    from agent.context.prompt import TokenCounter
    from agent.permissions.rules import Permissions
    from tools.registry import default_registry
    from tools.tool import ToolContext

    counter = TokenCounter(url)
    real_home = os.environ["HOME"]
    os.environ["HOME"] = str(workspace.parent)  # no skills of the machine's user
    setup = setup_skills(
        workspace,
        Config(),
        default_registry(),
        ToolContext(workspace),
        Permissions("ask", [], [], workspace, []),
        counter.count_text,
    )
    os.environ["HOME"] = real_home
    tool = setup.registry.get("skill")
    figures = {
        "catalogue": counter.count_text(setup.catalogue),
        "skill_tool_schema": counter.count_tools([openai_schema(tool)]) if tool else 0,
    }
    counter.close()
    return figures


def seed(source: Path, workspace: Path) -> int:
    """Copy ``source``'s Python files (their folders kept) into the workspace and commit them."""
    files = sorted(source.rglob("*.py"))
    for path in files:
        target = workspace / source.name / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    for args in (
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "seed"],
    ):
        subprocess.run(["git", *args], cwd=workspace, check=True)
    return len(files)


def turn(text: str, url: str, workspace: Path, env: dict[str, str], first: bool) -> dict[str, Any]:
    argv = [
        *BEECODE,
        "-p",
        text,
        "--output-format",
        "json",
        "--permission-mode",
        "yolo",
        "--max-steps",
        "4",
        "--endpoint",
        f"{url}/v1",
    ]
    done = subprocess.run(
        argv if first else [*argv, "--continue"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode not in (0, 3) or not done.stdout.strip():
        raise RuntimeError(f"beecode -p exited {done.returncode}: {done.stderr.strip()[-300:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, help="how many of the script's turns (default all)")
    parser.add_argument("--skill", action="store_true", help="the session that loads a skill")
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--repo-map-tokens", type=int, help="the map budget (0: none)")
    parser.add_argument("--seed", type=Path, help="commit this folder's .py files first")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    info = header("prompt_cache")
    script = SKILL_SCRIPT if args.skill else SCRIPT

    def go() -> int:
        turns: list[dict[str, Any]] = []
        with scratch("cache") as home:
            config = f"max_tokens = {args.max_tokens}\n"
            if args.repo_map_tokens is not None:
                config += f"repo_map_tokens = {args.repo_map_tokens}\n"
            workspace = agent_workspace(home / "work", config)
            subprocess.run(["git", "init", "-q", str(workspace)], check=True)
            if args.seed:
                info["seed_files"] = seed(args.seed, workspace)
            env = isolated_env(home)
            with served("tiny", home / "server.log") as (url, _plan):
                if args.skill:
                    info["skill_prompt_tokens"] = skill_prompt_tokens(url, workspace)
                    print(f"  skills in every prompt (tokens): {info['skill_prompt_tokens']}")
                for n, text in enumerate(script[: args.turns], start=1):
                    result = turn(text, url, workspace, env, first=n == 1)
                    requests = result["turns"]
                    turns.append(
                        {
                            "turn": n,
                            "task": text,
                            "requests": requests,
                            "tool_calls": [c.get("name") for c in result["tool_calls"]],
                            "stop_reason": result["stop_reason"],
                        }
                    )
                    per_request = ", ".join(
                        f"{r['cache_n']}/{r['cache_n'] + r['prompt_n']}" for r in requests
                    )
                    turn_share = share(requests)
                    print(
                        f"  turn {n:2d}: {len(requests)} requests, tools "
                        f"{turns[-1]['tool_calls'] or '-'}; cached/prompt tokens: "
                        f"{per_request or '-'}"
                        f"{f' = {turn_share:.1%}' if turn_share is not None else ''}"
                    )
        later = [r for t in turns[1:] for r in t["requests"]]
        every = [r for t in turns for r in t["requests"]]
        after_first = every[1:]
        worst = min(
            (
                r["cache_n"] / (r["cache_n"] + r["prompt_n"])
                for r in later
                if r["cache_n"] + r["prompt_n"]
            ),
            default=None,
        )
        from_turn_2, all_but_first = share(later), share(after_first)
        tools = sum(len(t["tool_calls"]) for t in turns)
        print(f"tool calls in the session: {tools}; requests: {len(every)}")
        if from_turn_2 is None:
            print("no requests after turn 1: nothing to measure")
        else:
            per_turn = [v for v in (share(t["requests"]) for t in turns[1:]) if v is not None]
            print(
                f"prompt tokens from cache, turns 2-{len(turns)}: {from_turn_2:.1%} "
                f"(mean of turns {statistics.mean(per_turn):.1%}, worst turn "
                f"{min(per_turn):.1%}, worst request {worst:.1%}); every request after the "
                f"first: {all_but_first:.1%}"
            )
            print(f"target >= {TARGET:.0%}: {'meets' if from_turn_2 >= TARGET else 'misses'}")
        save(
            {
                **info,
                "turns": turns,
                "share_from_turn_2": from_turn_2,
                "share_after_first_request": all_but_first,
                "target": TARGET,
            },
            args.out,
        )
        return 0

    return main_guard(go)


if __name__ == "__main__":
    sys.exit(main())

"""Memory: the agent process's peak RSS for one headless turn, alone and with three MCP servers.

`beecode -p` runs one short turn against the `tiny` server, first with no MCP server configured,
then with three real stdio servers from PyPI in the user's config.toml: mcp-server-time,
mcp-server-git (on the workspace repo) and mcp-server-fetch (installed here if missing). Peak RSS
is wait4's ru_maxrss of the agent process: its own peak, or a reaped child's if larger (each MCP
server peaks at ~70-80 MiB, below the agent). The run checks that the agent connected all three:
their processes are seen as its children during the turn, it reported no failed server, and the
turn's prompt grew by their tool schemas.

    python benchmarks/memory_mcp.py [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psutil
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

from server.process.pids import cmdline

BIN = Path(sys.executable).parent
FETCH = "mcp-server-fetch==2026.10.24"  # the third server; time and git come with the test extra
TASK = "Say hello in one short sentence."


def ensure_fetch_server() -> None:
    if not (BIN / "mcp-server-fetch").exists():
        print(f"installing {FETCH} into this environment")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", FETCH], check=True)


def mcp_config(repo: Path) -> str:
    servers = {
        "time": ["--local-timezone", "UTC"],
        "git": ["--repository", str(repo)],
        "fetch": [],
    }
    tables = []
    for name, args in servers.items():
        script = BIN / f"mcp-server-{name}"
        if not script.exists():
            raise RuntimeError(f"{script} is missing: pip install -e '.[test]'")
        tables.append(f"[mcp_servers.{name}]\ncommand = {str(script)!r}\nargs = {args!r}\n")
    return "\n".join(tables)


def mcp_children(pid: int) -> set[str]:
    """Names of the MCP servers (mcp-server-NAME) that are children of ``pid`` right now."""
    try:
        children = psutil.Process(pid).children()
    except psutil.Error:
        return set()
    return {Path(a).name for child in children for a in cmdline(child.pid) if "mcp-server-" in a}


def run_turn(workspace: Path, url: str, env: dict[str, str]) -> dict[str, Any]:
    """Peak RSS (MiB) of one `beecode -p` turn, its first request's prompt tokens, and the MCP
    servers seen as the agent's children."""
    argv = [
        *BEECODE,
        "-p",
        TASK,
        "--max-steps",
        "1",
        "--permission-mode",
        "plan",
        "--output-format",
        "json",
        "--endpoint",
        f"{url}/v1",
    ]
    out_path, err_path = workspace.parent / "out.json", workspace.parent / "err.txt"
    with out_path.open("w") as out_file, err_path.open("w") as err_file:
        # Files, not pipes: Popen.communicate would reap the process before wait4 could.
        proc = subprocess.Popen(argv, cwd=workspace, env=env, stdout=out_file, stderr=err_file)
    seen: set[str] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.05):
            seen.update(mcp_children(proc.pid))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    watcher.join()
    code = proc.returncode = os.waitstatus_to_exitcode(status)
    out, err = out_path.read_text(), err_path.read_text()
    if code not in (0, 3):
        raise RuntimeError(f"beecode -p exited {code}: {err[-300:]}")
    turn = (json.loads(out).get("turns") or [{}])[0]
    prompt = turn.get("prompt_n", 0) + (turn.get("cache_n") or 0)  # processed + from the cache
    return {
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "exit": code,
        "prompt_tokens": prompt,
        "mcp_children": sorted(seen),
        "mcp_problems": [line for line in err.splitlines() if "mcp server '" in line],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    info = header("memory_mcp")

    def go() -> int:
        ensure_fetch_server()
        with scratch("memory") as home:
            env = isolated_env(home)
            user_mcp = home / "config-mcp"
            user_mcp.mkdir()
            workspace = agent_workspace(home / "work", "max_tokens = 40\n")
            subprocess.run(["git", "init", "-q", str(workspace)], check=True)
            # MCP servers go in the user config: a project config may not add MCP commands.
            (user_mcp / "config.toml").write_text(mcp_config(workspace))
            with served("tiny", home / "server.log") as (url, _plan):
                alone = run_turn(workspace, url, env)
                mcp = run_turn(workspace, url, {**env, "BEECODE_CONFIG_DIR": str(user_mcp)})
                # The same servers with every tool listed (no budget: mcp_tool_budget = 0).
                listed_dir = home / "config-listed"
                listed_dir.mkdir()
                (listed_dir / "config.toml").write_text(
                    "mcp_tool_budget = 0\n" + mcp_config(workspace)
                )
                listed = run_turn(workspace, url, {**env, "BEECODE_CONFIG_DIR": str(listed_dir)})
        connected = len(mcp["mcp_children"]) == 3 and not mcp["mcp_problems"]
        print(
            f"agent alone: peak RSS {alone['peak_rss_mib']:.0f} MiB "
            f"(prompt {alone['prompt_tokens']} tokens)"
        )
        print(
            f"agent with 3 MCP servers connected ({', '.join(mcp['mcp_children'])}): peak RSS "
            f"{mcp['peak_rss_mib']:.0f} MiB (+{mcp['peak_rss_mib'] - alone['peak_rss_mib']:.0f} "
            f"MiB, ratio {mcp['peak_rss_mib'] / alone['peak_rss_mib']:.2f}; prompt "
            f"{mcp['prompt_tokens']} tokens)"
        )
        print(
            f"prompt tokens with the 3 servers: {listed['prompt_tokens']} with every tool listed,"
            f" {mcp['prompt_tokens']} in the default mode (one mcp_tools search tool past the"
            " budget)"
        )
        if not connected:
            print(f"gap: the agent did not connect all three servers: {mcp['mcp_problems']}")
        figures = {"alone": alone, "with_mcp": mcp, "with_mcp_listed": listed}
        save({**info, **figures, "all_connected": connected}, args.out)
        return 0 if connected else 1

    return main_guard(go)


if __name__ == "__main__":
    sys.exit(main())

"""Memory: the agent process's peak RSS for one headless turn, alone and with three MCP servers.

`beecode -p` runs one short turn against the `tiny` server; its peak RSS comes from wait4's
ru_maxrss (the agent process only: llama-server and the MCP servers are other processes). The
second run configures three stdio MCP servers (benchmarks/mcp_echo_server.py) in the user's
config.toml; each leaves a marker when started, so the run says whether the agent really connected
them. ru_maxrss is the larger of the agent's own peak and that of any child it reaped.

    python benchmarks/memory_mcp.py [--out FILE]
"""

from __future__ import annotations

import argparse
import os
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

MCP_SERVER = Path(__file__).resolve().parent / "mcp_echo_server.py"
N_MCP = 3
TASK = "Say hello in one short sentence."


def mcp_config(markers: Path) -> str:
    tables = []
    for name in ("alpha", "beta", "gamma")[:N_MCP]:
        tables.append(
            f"[mcp_servers.{name}]\ncommand = {sys.executable!r}\n"
            f"args = [{str(MCP_SERVER)!r}, {name!r}]\nenv = {{ MARKER_DIR = {str(markers)!r} }}\n"
        )
    return "\n".join(tables)


def peak_rss_mib(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    """(peak RSS of the process in MiB, exit status, stderr tail)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, proc.returncode, err[-300:]


def run_turn(workspace: Path, url: str, env: dict[str, str]) -> dict[str, Any]:
    argv = [*BEECODE, "-p", TASK, "--max-turns", "1", "--permission-mode", "plan",
            "--endpoint", f"{url}/v1"]
    rss, status, err = peak_rss_mib(argv, workspace, env)
    if status not in (0, 3):
        raise RuntimeError(f"beecode -p exited {status}: {err}")
    return {"peak_rss_mib": rss, "exit": status}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    info = header("memory_mcp")

    def go() -> int:
        with scratch("memory") as home:
            env = isolated_env(home)
            markers, user_mcp = home / "markers", home / "config-mcp"
            markers.mkdir()
            user_mcp.mkdir()
            # MCP servers go in the user config: a project config may not add MCP commands.
            (user_mcp / "config.toml").write_text(mcp_config(markers))
            workspace = agent_workspace(home / "work", "max_tokens = 40\n")
            with served("tiny", home / "server.log") as (url, _plan):
                alone = run_turn(workspace, url, env)
                mcp = run_turn(workspace, url, {**env, "BEECODE_CONFIG_DIR": str(user_mcp)})
            started = len(list(markers.iterdir()))
        print(f"agent alone: peak RSS {alone['peak_rss_mib']:.0f} MiB")
        print(f"agent with {N_MCP} MCP servers configured: peak RSS {mcp['peak_rss_mib']:.0f} MiB "
              f"(ratio {mcp['peak_rss_mib'] / alone['peak_rss_mib']:.2f}); MCP servers the agent "
              f"started: {started} of {N_MCP}")
        if started < N_MCP:
            print("gap: the agent did not connect the configured MCP servers, so the MCP figure "
                  "is the agent without them")
        save({**info, "alone": alone, "with_mcp": mcp, "mcp_started": started,
              "mcp_configured": N_MCP}, args.out)
        return 0

    return main_guard(go)


if __name__ == "__main__":
    sys.exit(main())

"""MCP servers start in the background: how long the runtime's connect takes with three real stdio
servers (mcp-server-time, mcp-server-git, and mcp-server-time behind a 5 s `sleep`, a slow one)
against how long until all three are up, and what each server's guard (tools/mcp/guard.py) costs.

No model is needed: the endpoint is a closed port (building an agent does not call it). The run
checks that all three came up and that none of their processes is left after the shutdown.

    python benchmarks/mcp_start.py [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
from _common import header, isolated_env, main_guard, ratio, save, scratch

BIN = Path(sys.executable).parent


def run(out: Path | None) -> int:
    info: dict[str, Any] = header("mcp_start")
    with scratch("mcp-start") as home:
        os.environ.update(isolated_env(home))
        from agent.config import Config
        from agent.faces.contract import ConnectRequest
        from agent.runtime import Runtime

        repo = home / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        time_server = str(BIN / "mcp-server-time")
        servers = {
            "time": {"command": time_server, "args": ["--local-timezone", "UTC"]},
            "git": {"command": str(BIN / "mcp-server-git"), "args": ["--repository", str(repo)]},
            "slow": {"command": "sh", "args": ["-c", f"sleep 5; exec {time_server}"]},
        }
        runtime = Runtime(home, Config(endpoint="http://127.0.0.1:9/v1", mcp_servers=servers))
        began = time.monotonic()
        runtime.connect(ConnectRequest(), lambda key, line: None)
        connected = time.monotonic() - began
        runtime.settle_mcp(lambda key, line: print(line))
        all_up = time.monotonic() - began
        family = psutil.Process().children(recursive=True)
        guards = [p for p in family if "guard.py" in " ".join(p.cmdline())]
        guard_mib = sum(p.memory_info().rss for p in guards) / len(guards) / 2**20
        assert runtime.mcp is not None and runtime.mcp.connect() == [], "a server did not start"
        runtime.shutdown()
        left = psutil.wait_procs(family, timeout=10)[1]
        assert not left, f"left running: {left}"
    info |= {"connect_s": connected, "all_up_s": all_up, "guard_rss_mib": guard_mib}
    info["all_up_over_connect"] = ratio(all_up, connected)
    print(
        f"connect returned after {connected:.2f} s; all 3 servers up after {all_up:.2f} s "
        f"({info['all_up_over_connect']:.1f}x); each guard {guard_mib:.1f} MiB RSS"
    )
    save(info, out)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    options = parser.parse_args()
    return main_guard(lambda: run(options.out))


if __name__ == "__main__":
    sys.exit(main())

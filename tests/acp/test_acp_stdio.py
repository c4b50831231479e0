"""`beecode acp`'s stdio as bytes: stdout carries JSON-RPC lines and nothing else, a line that
is not JSON is skipped, bad requests get beecode's one-line error, and stdio that is no pipe
is refused at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

pytestmark = pytest.mark.usefixtures("beecode_dirs")
UNREACHABLE = "http://127.0.0.1:9/v1"
NO_PIPES = "beecode acp: stdin and stdout must be pipes (an editor starts it)"


def request(stdin: IO[str], number: int, method: str, params: dict[str, Any]) -> None:
    message = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
    stdin.write(json.dumps(message) + "\n")
    stdin.flush()


def test_stdout_holds_only_the_protocol(workspace: Path) -> None:
    command = [sys.executable, "-m", "agent", "acp", "--endpoint", UNREACHABLE]
    with subprocess.Popen(
        command,
        cwd=workspace,
        env=dict(os.environ),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as beecode:
        assert beecode.stdin is not None and beecode.stdout is not None
        request(beecode.stdin, 1, "initialize", {"protocolVersion": 1})
        beecode.stdin.write("print('not json')\n")
        request(
            beecode.stdin,
            2,
            "session/load",
            {"cwd": str(workspace), "sessionId": "nope", "mcpServers": []},
        )
        request(beecode.stdin, 3, "session/new", {"cwd": str(workspace), "mcpServers": []})
        request(beecode.stdin, 4, "session/prompt", {"sessionId": "x", "prompt": []})
        replies = {}
        for _ in range(4):
            line = beecode.stdout.readline()
            reply = json.loads(line)  # every line on stdout is a JSON-RPC message
            assert reply["jsonrpc"] == "2.0"
            replies[reply["id"]] = reply
        beecode.stdin.close()
        assert beecode.stdout.read() == ""
        assert beecode.wait() == 0
        assert "Error parsing JSON-RPC message" in (beecode.stderr.read() if beecode.stderr else "")
    assert replies[1]["result"]["agentCapabilities"]["loadSession"] is True
    assert replies[2]["error"]["message"].startswith("beecode: no session 'nope'")
    # an endpoint nothing answers at is said before a session opens (and before any MCP server)
    assert replies[3]["error"]["message"].startswith("beecode: cannot reach the model server at")
    assert replies[4]["error"]["message"] == "beecode: no session 'x' in this connection"


def test_stdio_that_is_no_pipe_is_refused(workspace: Path) -> None:
    (workspace / "in").write_text("")
    with open(workspace / "in") as stdin, open(workspace / "out", "w") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "agent", "acp"],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert (
        done.stderr.strip() == "beecode acp: stdin and stdout must be pipes (an editor starts it)"
    )
    assert (workspace / "out").read_text() == ""

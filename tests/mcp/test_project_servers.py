"""A .mcp.json dropped into a project, against real stdio servers: it waits for approval, then
connects; the server's environment is the SDK's safe set plus the config's env and the proxy
variables, never the user's secrets."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from agent.config import Config
from agent.mcp_config import approve, mcp_setup
from agent.runtime.assemble import connect_mcp

pytestmark = pytest.mark.usefixtures("beecode_dirs")
NOTES = str(Path(__file__).with_name("notes_mcp.py"))


def test_a_project_server_starts_once_approved_with_a_scrubbed_env(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-do-not-leak-0123456789")
    monkeypatch.setenv("UNRELATED_SETTING", "parent-only")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NOTES_TOKEN", "passed-on-purpose")
    entry = {
        "command": sys.executable,
        "args": [NOTES],
        "env": {"GREETING": "${GREETING_SRC:-hi}", "TOKEN": "${env:NOTES_TOKEN}"},
    }
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"notes": entry}}))
    lines: list[str] = []
    assert connect_mcp(mcp_setup(workspace, Config()), lines.append) is None
    assert lines == [
        "mcp: project servers not started (not approved in this workspace): notes"
        f" ({sys.executable} {NOTES}); approve with `beecode mcp approve NAME`"
    ]
    approve(workspace, ["notes"], Config())
    servers = connect_mcp(mcp_setup(workspace, Config()), lines.append)
    assert servers is not None
    assert servers.connect() == []  # started in the background: wait for it
    try:
        seen = {
            name: asyncio.run(servers.call("notes", "env_var", {"name": name})).output
            for name in ("GREETING", "TOKEN", "HTTPS_PROXY", "OPENAI_API_KEY", "UNRELATED_SETTING")
        }
        assert seen == {
            "GREETING": "hi",
            "TOKEN": "passed-on-purpose",
            "HTTPS_PROXY": "http://proxy.internal:3128",
            "OPENAI_API_KEY": "<unset>",
            "UNRELATED_SETTING": "<unset>",
        }
        assert lines[-1] == "starting MCP servers: notes"
    finally:
        servers.close()

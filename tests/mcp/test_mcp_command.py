"""``beecode mcp`` against real servers (mcp-server-time from PyPI and the notes server here):
add to either file, list with states, get, disable/enable, approve, test with timings and a
failing exit, remove; per-server allow/deny lists of tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent.mcp_command import main

pytestmark = pytest.mark.usefixtures("beecode_dirs")
BIN = Path(sys.executable).parent
TIME = [str(BIN / "mcp-server-time"), "--local-timezone", "UTC"]
NOTES = [sys.executable, str(Path(__file__).with_name("notes_mcp.py"))]


@pytest.fixture(autouse=True)
def in_workspace(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workspace)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_add_list_disable_enable_remove(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "add", "time", "--", *TIME)[0] == 0
    assert run(capsys, "add", "notes", "--scope", "project", "--env", "A=1", "--", *NOTES)[0] == 0
    user_file, project_file = tmp_path / "config/mcp.json", workspace / ".mcp.json"
    assert json.loads(project_file.read_text())["mcpServers"]["notes"]["env"] == {"A": "1"}
    code, lines, _ = run(capsys, "list")
    assert code == 0
    assert lines == [
        f"notes · connected, 1 tool, 2 resources, 1 prompt · {' '.join(NOTES)} · {project_file}",
        f"time · connected, 2 tools, 0 resources, 0 prompts · {' '.join(TIME)} · {user_file}",
    ]
    assert run(capsys, "disable", "time")[0] == 0
    assert run(capsys, "list")[1][1].startswith("time · disabled · ")
    assert run(capsys, "enable", "time")[0] == 0
    assert run(capsys, "list")[1][1].startswith("time · connected, 2 tools")
    code, lines, _ = run(capsys, "get", "time")
    assert lines[0] == f"time: {user_file}"
    assert json.loads("\n".join(lines[1:]))["args"] == TIME[1:]
    assert run(capsys, "remove", "time")[1] == [f"removed time from {user_file}"]
    assert json.loads(user_file.read_text()) == {"mcpServers": {}}
    assert run(capsys, "get", "time")[0] == 1


def test_a_project_server_waits_for_approval_and_test_starts_it_only_once_approved(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = tmp_path / "started"  # the server's command leaves this when it runs at all
    wrapped = f'touch "{started}"; exec {" ".join(TIME)}'
    entry = {"command": "sh", "args": ["-c", wrapped], "deny_tools": ["*convert*"]}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"clock": entry}}))
    assert run(capsys, "list")[1][0].startswith("clock · not approved (beecode mcp approve NAME)")
    code, lines, err = run(capsys, "test", "clock")
    assert (code, lines) == (1, [])
    assert err.startswith("beecode mcp: clock is a project server not approved here: ")
    assert err.endswith("beecode mcp approve clock\n")
    assert not started.exists()
    assert run(capsys, "approve", "clock")[0] == 0
    code, lines, _ = run(capsys, "test", "clock")
    assert code == 0
    assert lines[0] == f"clock: sh -c {wrapped}"
    assert lines[1].startswith("connected and listed in ") and lines[1].endswith(" s: 1 tools")
    assert lines[2:] == ["  clock_get_current_time"]  # the deny list hides convert_time
    assert started.exists()
    assert run(capsys, "list")[1][0].startswith("clock · connected, 2 tools")


def test_test_exits_non_zero_on_a_server_that_cannot_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(capsys, "add", "gone", "--", "/nonexistent/mcp-server")[0] == 0
    code, _, err = run(capsys, "test", "gone")
    assert code == 1
    assert "command not found: /nonexistent/mcp-server" in err
    assert run(capsys, "add", "both", "--url", "http://127.0.0.1:1/mcp", "--", "x")[0] == 2
    assert run(capsys, "test", "nosuch")[0] == 1

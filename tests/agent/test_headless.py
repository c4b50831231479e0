"""Headless mode's rendering, exit statuses and the CLI around it (scripted model)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent import cli
from agent.config import Config, Mode, ToolMode
from agent.faces.headless import HEADLESS_DENIAL, event_json, run_agent, stats_line
from agent.model.scripted import Step, call, text
from agent.sessions.store import Session
from agent.small.report import WITHHELD
from server.launch.addresses import free_port
from tests.factory import make_agent

pytestmark = pytest.mark.usefixtures("beecode_dirs")
ROOT = Path(__file__).parents[2]


def run(
    workspace: Path,
    replies: list[list[Step]],
    fmt: str,
    mode: Mode = "yolo",
    tool_mode: ToolMode = "native",
) -> tuple[int, str, str]:
    """One headless task on the real agent (scripted model); stderr ends with the session id."""
    config = Config(permission_mode=mode, tool_mode=tool_mode)
    agent = make_agent(workspace, replies, config)
    out, err = io.StringIO(), io.StringIO()
    try:
        status = run_agent(agent, "make a.txt", fmt, out, err, agent.session.id)
    finally:
        agent.close()
    return status, out.getvalue(), err.getvalue()


WRITE = call("write", {"path": "a.txt", "content": "A"}, "w1")


def test_text_puts_the_answer_on_stdout_and_the_rest_on_stderr(workspace: Path) -> None:
    status, out, err = run(workspace, [WRITE, text("Made a.txt.")], "text")
    assert (status, out) == (0, "Made a.txt.\n")
    assert (workspace / "a.txt").read_text() == "A"
    call_line, facts, stats = err.splitlines()
    assert call_line == '→ write {"path": "a.txt", "content": "A"}'
    assert facts == "beecode: created a.txt"  # beecode's account, before the model's words
    session_id = stats.rsplit(" ", 1)[1]
    assert stats == (
        "2 requests · 50.0 tok/s · no drafts reported · prompt 0 cached / 20 new · 0.2 s "
        f"· session {session_id}"
    )
    assert Session.open(session_id).messages()[-1]["content"] == "Made a.txt."


def test_json_is_one_object(workspace: Path) -> None:
    status, out, _ = run(workspace, [WRITE, text("Made a.txt.")], "json")
    result = json.loads(out)
    assert status == 0
    assert result["result"] == "Made a.txt." and result["stop_reason"] == "done"
    assert len(result["turns"]) == 2 and result["turns"][0]["source"] == "server"
    [tool_call] = result["tool_calls"]
    assert tool_call["name"] == "write" and tool_call["arguments"] == {
        "path": "a.txt",
        "content": "A",
    }
    assert tool_call["is_error"] is False
    assert result["changes"] == {"created": ["a.txt"], "changed": [], "deleted": []}
    assert result["commands"] == [] and result["failed"] == [] and result["doubts"] == []
    assert Session.open(result["session_id"]).messages()[-1]["content"] == "Made a.txt."


def test_a_small_models_report_the_facts_contradict_is_left_out(workspace: Path) -> None:
    write = text('{"name": "write", "arguments": {"path": "a.txt", "content": "A"}}')
    report = text('{"name": "answer", "arguments": {"text": "Created b.txt."}}')
    replies = [write, text('"done"'), report, report]  # sent back once, said again
    status, out, _ = run(workspace, replies, "json", "yolo", "constrained")
    result = json.loads(out)
    assert (result["result"], result["withheld"]) == (WITHHELD, "Created b.txt.")
    assert result["doubts"] == ["the report names b.txt; no such file is in the workspace"]
    assert result["changes"]["created"] == ["a.txt"]


def test_stream_json_is_one_event_per_line(workspace: Path) -> None:
    status, out, _ = run(workspace, [WRITE, text("Made ", "a.txt.")], "stream-json")
    lines = [json.loads(line) for line in out.splitlines()]
    types = [line["type"] for line in lines]
    assert status == 0
    assert types == [
        "step_stats",
        "tool_call_started",
        "tool_call_finished",
        "text_delta",
        "text_delta",
        "step_stats",
        "turn_finished",
        "result",
    ]
    assert lines[0]["stats"]["source"] == "server"
    assert lines[-1]["result"] == "Made a.txt."
    assert lines[-1]["changes"]["created"] == lines[-2]["facts"]["created"] == ["a.txt"]
    assert lines[-1]["commands"] == lines[-2]["facts"]["commands"] == []


def test_a_false_citation_is_said_beside_it_and_a_failed_step_exits_3(workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    edit = call("edit", {"path": "b.txt", "old": "x", "new": "y"})
    run_it = call("bash", {"command": "echo hi"})
    answer = text("Updated b.txt (see `a.py:40`).")
    status, out, err = run(workspace, [edit, run_it, answer], "text")
    assert (status, out) == (3, "Updated b.txt (see `a.py:40`).\n")
    facts = [line for line in err.splitlines() if line.startswith("beecode: ")]
    assert facts[0] == "beecode: ran `echo hi` (exit 0)"
    assert facts[1].startswith("beecode: failed: edit b.txt: ")
    assert facts[2:] == ["beecode: the answer cites a.py:40; it has 1 lines"]


def test_asks_are_denied_with_a_note_since_nobody_can_answer(workspace: Path) -> None:
    status, out, err = run(workspace, [WRITE, text("Could not write.")], "text", mode="ask")
    assert status == 0 and out == "Could not write.\n"
    assert "beecode: denied write(a.txt): a headless run cannot ask" in err
    assert not (workspace / "a.txt").exists()
    _, out, _ = run(workspace, [WRITE, text("no")], "json", mode="ask")
    told = json.loads(out)["tool_calls"][0]["output"]
    assert told == HEADLESS_DENIAL  # the face's account, not "the user denied" nor "try again"


def test_stream_json_permission_events_have_no_future(workspace: Path) -> None:
    _, out, _ = run(workspace, [WRITE, text("no")], "stream-json", mode="ask")
    request = next(json.loads(x) for x in out.splitlines() if '"permission_request"' in x)
    assert request["tool"] == "write" and request["subject"] == "a.txt"
    assert "future" not in request


def test_tool_failures_exit_3(workspace: Path) -> None:
    bad = call("read", {"path": "missing.txt"})
    status, _, err = run(workspace, [bad, bad, bad], "text")
    assert status == 3
    assert "beecode: Stopped: the same read call gave the same result 3 times" in err


def test_what_beecode_says_in_a_turn_is_on_stderr_and_in_the_json(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("x\n")
    steps = [call("read", {"path": "notes.txt"})] * 3
    status, _, err = run(workspace, [*steps], "text")
    said = "beecode: Stopped: the same read call gave the same result 3 times"
    assert status == 3 and err.count(said) == 1  # as it came, not again at the end
    status, out, _ = run(workspace, [*steps], "json")
    [notice] = json.loads(out)["notices"]
    assert notice["level"] == "warning" and notice["message"].startswith(said[9:])


def test_model_errors_exit_1(workspace: Path) -> None:
    from agent.model.endpoint import ModelError

    status, out, _ = run(workspace, [[ModelError("model server error 500: boom")]], "json")
    assert status == 1 and json.loads(out)["stop_reason"] == "error"


def test_stats_line_without_requests() -> None:
    assert stats_line(None) == "no model requests"


def test_event_json_names() -> None:
    from agent.events import Notice

    assert event_json(Notice("hi")) == {"type": "notice", "message": "hi", "level": "info"}


def test_cli_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--output-format", "xml", "-p", "x"]) == 2
    assert cli.main(["-p", "  "]) == 2
    assert "-p needs a task" in capsys.readouterr().err


def test_cli_reports_a_bad_config_in_one_line(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (workspace / ".beecode").mkdir()
    (workspace / ".beecode" / "config.toml").write_text("max_steps = 'many'\n")
    monkeypatch.chdir(workspace)
    assert cli.main(["-p", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("beecode: ") and "max_steps" in err and err.count("\n") == 1


def test_cli_names_project_settings_it_ignored(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (workspace / ".beecode").mkdir()
    (workspace / ".beecode" / "config.toml").write_text('endpoint = "http://198.51.100.7/v1"\n')
    monkeypatch.chdir(workspace)
    cli.main(["-p", "hi", "--endpoint", "http://127.0.0.1:9/v1", "--output-format", "json"])
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("beecode: ignored in .beecode/config.toml (the project is not trusted)")
    assert "endpoint" in first and "trusted_workspaces" in first


def test_cli_unreachable_endpoint_is_one_line_before_any_mcp_server_starts(
    workspace: Path, tmp_path: Path
) -> None:
    """A real `beecode -p` with an MCP server configured: nothing answers at the endpoint, so
    it says so in one line and the server's command never runs."""
    started = tmp_path / "started"
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text(
        f'[mcp_servers.m]\ncommand = "sh"\nargs = ["-c", "touch {started}; sleep 30"]\n'
    )
    env = {**os.environ, "BEECODE_CONFIG_DIR": str(config), "PYTHONPATH": str(ROOT)}
    argv = ["-p", "hi", "--endpoint", f"http://127.0.0.1:{free_port()}/v1", "--output-format"]
    done = subprocess.run(
        [sys.executable, "-m", "agent", *argv, "json"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("beecode: cannot reach the model server at http://127.0.0.1:")
    assert done.stderr.count("\n") == 1, done.stderr
    assert not started.exists()


def test_cli_sessions_lists_this_workspace(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(workspace)
    assert cli.main(["sessions"]) == 0
    assert "no sessions" in capsys.readouterr().err
    session = Session.create(workspace)
    session.append_message({"role": "user", "content": "fix the tests"})
    assert cli.main(["sessions"]) == 0
    line = capsys.readouterr().out
    assert line.startswith(session.id) and "1 messages  fix the tests" in line


def test_cli_resume_of_unknown_session_is_one_line(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(workspace)
    assert (
        cli.main(
            ["-p", "x", "--resume", "20990101-000000-abcd", "--endpoint", "http://127.0.0.1:9"]
        )
        == 1
    )
    assert capsys.readouterr().err.startswith("beecode: no session '20990101-000000-abcd'")


def test_cli_resume_by_an_ambiguous_start_names_the_candidates(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(workspace)
    ids = [Session.create(workspace).id for _ in range(2)]
    argv = ["-p", "x", "--endpoint", "http://127.0.0.1:9", "--resume", ids[0][:8]]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is ambiguous: 2 sessions" in err and all(i in err for i in ids)
    unique = ids[1][: len(os.path.commonprefix(ids)) + 1]
    cli.main([*argv[:-1], unique])  # found: the run goes on, to the (unreachable) model server
    captured = capsys.readouterr()
    assert "no session" not in captured.err and "ambiguous" not in captured.err
    assert captured.err.startswith("beecode: cannot reach the model server")


def test_cli_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    assert re.fullmatch(r"beecode \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)

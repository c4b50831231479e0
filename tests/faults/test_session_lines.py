"""Session files with lines of the wrong shape still load; records that are not valid Unicode
are still written."""

from __future__ import annotations

import json
from pathlib import Path

from agent.config import Config
from agent.faces.contract import ConnectRequest
from agent.runtime import Runtime
from agent.sessions.store import Session
from tests.faults.misbehaving import misbehaving_server

GOOD = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
]
BAD: list[dict[str, object]] = [
    {"role": "assistant", "content": "", "tool_calls": "read a.txt"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": 1, "function": {}}]},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c", "function": {"name": "x", "arguments": {}}}],
    },
    {"role": "user", "content": 42},
    {"role": "wizard", "content": "?"},
    {"content": "no role"},
    {"role": "tool", "content": "no call id"},
    {"role": "user", "content": ["not", "parts"]},
]


def test_a_session_with_misshapen_lines_loads_and_notes_them(ws: Path) -> None:
    session = Session.create(ws)
    session.append_message(GOOD[0])
    for message in BAD:
        session.append_message(message)
    with session.path.open("a") as file:
        file.write('[1, 2]\n"a string"\n{torn\n')
        file.write(json.dumps({"type": "message", "message": "not an object"}) + "\n")
        file.write(json.dumps({"type": "compaction", "messages": [GOOD[0], 7, BAD[0]]}) + "\n")
    session.append_message(GOOD[1])
    reopened = Session.open(session.id)
    assert reopened.messages() == GOOD
    assert len(reopened.skipped) == len(BAD) + 2
    assert "record 3: tool_calls is not a list on an assistant message" in reopened.skipped[0]


def test_a_record_with_a_lone_surrogate_is_written_escaped(ws: Path) -> None:
    session = Session.create(ws)
    name = "caf\udce9.txt"  # how Python spells a Latin-1 file name it cannot decode
    session.append_message({"role": "tool", "tool_call_id": "c", "content": name})
    [record] = [json.loads(line) for line in session.path.read_text().splitlines()[1:]]
    assert record["message"]["content"] == name


def test_a_resume_says_which_lines_were_left_out(ws: Path) -> None:
    session = Session.create(ws)
    session.append_message(GOOD[0])
    session.append_message(BAD[0])
    lines: list[str] = []
    with misbehaving_server() as url:  # any OpenAI-style endpoint; it is not asked anything
        config = Config(endpoint=f"{url}/fine", tool_mode="native")
        runtime = Runtime(ws, config)
        core = runtime.connect(
            ConnectRequest(resume=session.id), lambda _key, line: lines.append(line)
        )
        agent = core.agent
        runtime.shutdown(stop_server=False)
    assert lines[-1] == (
        f"session {session.id}: record 3: tool_calls is not a list on an assistant message; "
        "left out of the history"
    )
    assert agent.messages[1:] == [GOOD[0]]

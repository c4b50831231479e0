"""The model server's stream misbehaves (a real HTTP server on 127.0.0.1, tests/faults/
misbehaving.py): the turn ends with one clear line, the history stays valid, and the next turn
works on the same session."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Config, load_config
from agent.events import ErrorEvent, Event
from agent.loop.agent import Agent
from agent.model.endpoint import OpenAIChatModel
from agent.runtime.served import serve_model
from agent.sessions.store import Session
from tests.faults.misbehaving import misbehaving_server
from tests.scripted import agent_on

BROKEN = {
    "cut": "the model server's reply was cut: RemoteProtocolError",
    "stall": "the model server's reply stalled: ReadTimeout",
    "garbage": "the model server sent a bad event: {not json",
    "binary": "the model server sent a bad event:",
    "error": "model server error 500: out of memory",
}


def agent_at(url: str, ws: Path, session: Session) -> Agent:
    # stall_s: how long "no byte" may last; short here so the stall is noticed at once.
    return agent_on(OpenAIChatModel(url, stall_s=1.0), ws, session=session, system="s")


@pytest.mark.parametrize("fault", list(BROKEN))
async def test_a_broken_stream_is_one_clear_error_and_the_session_goes_on(
    ws: Path, fault: str
) -> None:
    session = Session.create(ws)
    events: list[Event] = []
    with misbehaving_server() as url:
        broken = await agent_at(f"{url}/{fault}", ws, session).run_turn("hi", events.append)
        assert broken.stop_reason == "error" and broken.final_text.startswith(BROKEN[fault])
        assert [e.message for e in events if isinstance(e, ErrorEvent)] == [broken.final_text]
        assert "\n" not in broken.final_text
        resumed = Session.open(session.id)
        assert [m["role"] for m in resumed.messages()] == ["user"]
        again = await agent_at(f"{url}/fine", ws, resumed).run_turn("again", lambda _e: None)
    assert again.stop_reason == "done" and again.final_text == "Hello"
    roles = [m["role"] for m in Session.open(session.id).messages()]
    assert roles == ["user", "user", "assistant"]


async def test_missing_timings_fall_back_to_client_figures(ws: Path) -> None:
    with misbehaving_server() as url:
        agent = agent_at(f"{url}/no-timings", ws, Session.create(ws))
        finished = await agent.run_turn("hi", lambda _e: None)
    assert (finished.stop_reason, finished.final_text) == ("done", "Hello")
    assert [s.source for s in finished.stats] == ["client"]


async def test_fields_of_the_wrong_shape_are_ignored_not_fatal(ws: Path) -> None:
    with misbehaving_server() as url:
        agent = agent_at(f"{url}/odd", ws, Session.create(ws))
        finished = await agent.run_turn("hi", lambda _e: None)
    # What is left of the odd call (no name) is refused each time the server repeats it.
    assert finished.stop_reason == "tool_failures" and "unknown tool ''" in finished.final_text
    assert [s.source for s in finished.stats] == ["client"] * 3


async def test_the_stall_timeout_is_the_users_setting(ws: Path) -> None:
    with misbehaving_server() as url:
        endpoint = f"{url}/stall"
        served = serve_model(endpoint, Config(endpoint=endpoint, stall_timeout_s=1.0))
        agent = agent_on(served.chat, ws, session=Session.create(ws), system="s")
        finished = await agent.run_turn("hi", lambda _e: None)
    assert finished.final_text.startswith(BROKEN["stall"])


def test_a_project_config_cannot_raise_the_stall_timeout(ws: Path) -> None:
    (ws / ".beecode").mkdir()
    (ws / ".beecode" / "config.toml").write_text("stall_timeout_s = 86000\n")
    config = load_config(ws)
    assert config.stall_timeout_s == Config().stall_timeout_s
    assert "stall_timeout_s" in " ".join(config.ignored_project_settings)

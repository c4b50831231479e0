"""The real llama-server (SmolLM2-135M under ManagedServer) SIGKILLed mid-stream: the turn fails
with one clear line, the supervisor restarts the server, and the same session goes on."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.events import ErrorEvent, Event, TextDelta
from agent.loop.agent import Agent
from agent.model.endpoint import OpenAIChatModel
from agent.sessions.store import Session
from server.engine.build import Engine
from server.health import health
from server.launch.addresses import free_port
from server.process.managed import ManagedServer
from tests import scripted
from tools.registry import ToolRegistry


def agent_on(url: str, ws: Path, session: Session) -> Agent:
    return scripted.agent_on(
        OpenAIChatModel(url, max_tokens=64, temperature=0.0),
        ws,
        # no tools: SmolLM2's template has none, and none are needed here
        registry=ToolRegistry([]),
        session=session,
        system="You are a storyteller.",
    )


@pytest.mark.real_server
async def test_a_server_killed_mid_stream_fails_the_turn_and_the_session_goes_on(
    engine: Engine,
    smollm2_path: Path,
    start_server: Callable[[list[str], int], ManagedServer],
    ws: Path,
) -> None:
    port = free_port()
    argv = [str(engine.binary), "-m", str(smollm2_path), *"-c 2048 -np 1 --port".split(), str(port)]
    server = start_server(argv, port)
    first = server.pid
    assert first is not None
    events: list[Event] = []

    def kill_at_first_text(event: Event) -> None:
        events.append(event)
        if isinstance(event, TextDelta) and server.pid == first:
            os.kill(first, signal.SIGKILL)

    session = Session.create(ws)
    broken = await agent_on(server.url, ws, session).run_turn(
        "Tell a very long story about a bee.", kill_at_first_text
    )
    assert broken.stop_reason == "error"
    assert broken.final_text.startswith(("the model server's reply was cut", "cannot reach"))
    assert [e.message for e in events if isinstance(e, ErrorEvent)] == [broken.final_text]

    deadline = time.monotonic() + 120
    while not (server.restarts == 1 and health(server.url) == 200):
        assert time.monotonic() < deadline, "the supervisor did not restart the server"
        time.sleep(0.2)
    resumed = Session.open(session.id)
    again = await agent_on(server.url, ws, resumed).run_turn("Say hi.", lambda _e: None)
    assert again.stop_reason == "done" and again.final_text.strip()
    roles = [m["role"] for m in Session.open(session.id).messages()]
    assert roles[0] == "user" and roles[-2:] == ["user", "assistant"]


@pytest.mark.real_server
def test_a_server_that_hangs_without_dying_is_noticed_and_restarted(
    engine: Engine, smollm2_path: Path, tmp_path: Path
) -> None:
    port = free_port()
    argv = [str(engine.binary), "-m", str(smollm2_path), *"-c 2048 -np 1 --port".split(), str(port)]
    server = ManagedServer(argv, log_path=tmp_path / "server.log", host="127.0.0.1", port=port)
    server.probe_every_s, server.probe_misses = 0.5, 2  # the defaults: 10 s and 3 misses
    server.start(timeout_s=120)
    try:
        hung = server.pid
        assert hung is not None
        os.kill(hung, signal.SIGSTOP)  # alive, but answers nothing
        deadline = time.monotonic() + 120
        while not (server.restarts == 1 and health(server.url) == 200):
            assert time.monotonic() < deadline, "the hung server was not restarted"
            time.sleep(0.2)
        assert server.pid != hung
        assert "did not answer 2 health probes; restarting it" in server.log_path.read_text()
    finally:
        server.stop()

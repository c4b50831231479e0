"""The runtime both faces use, on a real managed server: it starts the profile's server for its
agent, reads its state, restarts it, and stops only a server it started itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.config import Config
from agent.faces.contract import ConnectRequest
from agent.runtime import Runtime

if TYPE_CHECKING:
    from server.engine.build import Engine


@pytest.mark.real_server
def test_the_runtime_starts_restarts_and_stops_its_managed_server(
    engine: Engine,
    qwen_path: Path,
    tmp_path: Path,
    managed_port: int,
    servers_on: Callable[[int], list[int]],
) -> None:
    port = managed_port
    workspace = tmp_path / "ws"
    workspace.mkdir()
    runtime = Runtime(workspace, Config(profile="tiny"))
    lines: list[tuple[str, str]] = []
    try:
        core = runtime.connect(ConnectRequest(), lambda key, line: lines.append((key, line)))
        assert ("step", "starting the model server (tiny)") in lines
        view = runtime.server(5)
        assert (view.state, view.profile, view.url) == ("up", "tiny", f"http://127.0.0.1:{port}")
        assert view.log_tail and view.can_restart
        assert view.engine == "llama.cpp b11434 (pypi, cpu)"  # as the server panel shows it
        assert core.facts.model.startswith("qwen2.5-coder-0.5b") and core.facts.n_ctx == 8192
        assert runtime.agent is not None
        assert (core.facts.profile, core.session_id) == ("tiny", runtime.agent.session.id)
        [first] = servers_on(port)

        runtime.restart_server(lambda key, line: None)
        assert runtime.server(0).state == "up"
        assert servers_on(port) not in ([], [first])

        # A second runtime (a headless run) reuses the server and leaves it to its starter.
        other = Runtime(workspace, Config(profile="tiny"))
        other.connect(ConnectRequest(), lambda key, line: None)
        other.shutdown()
        assert len(servers_on(port)) == 1
    finally:
        runtime.shutdown()
    assert servers_on(port) == []
    assert runtime.server(0).state == "down"

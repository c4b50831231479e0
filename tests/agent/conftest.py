"""Fixtures of the agent tests: a workspace folder, with the session data kept beside it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.sse_server import scripted_endpoint


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty workspace; sessions go to a data folder of this test's own."""
    monkeypatch.setenv("BEECODE_DATA_DIR", str(tmp_path / "data"))
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def endpoint() -> Iterator[str]:
    """A scripted llama-server (``tests.agent.sse_server``)."""
    with scripted_endpoint() as url:
        yield url


@pytest.fixture
def managed_port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """beecode's data, state and config in this test's folder, and the port a managed server
    (`server up`) gets: not 8080, where other tests may run one beside."""
    from server.launch import plan
    from server.launch.addresses import free_port

    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"BEECODE_{name}_DIR", str(tmp_path / name.lower()))
    port = free_port()
    monkeypatch.setattr(plan, "DEFAULT_PORT", port)
    return port

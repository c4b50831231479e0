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

"""A fork starts from its source's saved prompt cache, on a real llama-server (tiny): the
source's slot file is restored for the fork, whose first request reads in only the new message;
the fork saves its own slot under its own id and the source's file and session stay as they were.
/fork in a live session goes on on the slot the server already holds."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.config import Config
from agent.events import Event, Notice, RequestStats, StepStats
from agent.faces.contract import ConnectRequest, Core
from agent.runtime import Runtime
from agent.runtime.slot_cache import managed_slots
from agent.sessions.store import Session
from tests.agent.test_resume_real_server import TASK

if TYPE_CHECKING:
    from server.engine.build import Engine

pytestmark = pytest.mark.real_server


def _turn(core: Core, text: str) -> tuple[RequestStats, list[str]]:
    """The turn's first request figures and its prompt-cache notices."""
    events: list[Event] = []
    asyncio.run(core.agent.run_turn(text, events.append))
    notes = [e.message for e in events if isinstance(e, Notice) and "prompt cache" in e.message]
    return next(e.stats for e in events if isinstance(e, StepStats)), notes


def test_a_fork_reads_in_only_the_new_message(
    engine: Engine,
    qwen_path: Path,
    tmp_path: Path,
    managed_port: int,
    servers_on: Callable[[int], list[int]],
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = Config(
        profile="tiny", temperature=0.0, max_tokens=16, max_steps=1, permission_mode="plan"
    )
    lines: list[str] = []

    def progress(_key: str, line: str) -> None:
        lines.append(line)

    runtime = Runtime(workspace, config)
    try:
        core = runtime.connect(ConnectRequest(), progress)
        _turn(core, TASK)
        source = core.session_id
        assert source is not None
        cache = managed_slots(config)
        assert cache is not None
    finally:
        runtime.shutdown()  # saves the source's slot, then stops the server it started
    assert servers_on(managed_port) == []
    assert cache.saved(source) is not None
    before = Session.open(source).path.read_bytes()
    saved_slot = (cache.folder / f"{source}.slot").read_bytes()

    again = Runtime(workspace, config)  # a fresh server: its slot holds nothing
    lines.clear()
    try:
        core = again.connect(ConnectRequest(resume=source, fork=True), progress)
        fork = core.session_id
        assert fork is not None and fork != source and core.forked_from == source
        restored = [line for line in lines if line.startswith("restored the prompt cache")]
        assert restored and restored[0].startswith(
            f"restored the prompt cache of session {source}:"
        )
        n_restored = int(restored[0].split(": ")[1].split(" tokens")[0])
        first, notes = _turn(core, "And for x = 3?")
        assert notes and "restore took effect" in notes[0], notes
        assert first.cache_n * 2 >= n_restored and first.cache_n > first.prompt_n, first

        # /fork in the live session: the slot already holds this conversation, no restore.
        lines.clear()
        live = again.connect(ConnectRequest(resume=fork, fork=True), progress)
        assert live.session_id not in (fork, source)
        assert not [line for line in lines if "restored the prompt cache" in line], lines
        assert any(line.startswith("saved the prompt cache (") for line in lines), lines
        then, notes = _turn(live, "And for x = 4?")
        assert not notes and then.cache_n > then.prompt_n, then
    finally:
        again.shutdown()
    assert Session.open(source).path.read_bytes() == before  # the source, only read
    assert (cache.folder / f"{source}.slot").read_bytes() == saved_slot
    assert cache.saved(fork) is not None  # each fork's slot is saved under its own id

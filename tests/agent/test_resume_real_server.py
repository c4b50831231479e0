"""Resume without re-prefill, on real llama-servers: the runtime saves a session's slot when it
restarts the server or quits and restores it on resume when the prefix matches (the next request
then reads in only the new part); a prefix that changed falls back to prefill; a restore that the
next request does not use is reported as having had no effect."""

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
from agent.runtime.slot_cache import SlotCache, prefix_of, restore_effect
from server.client import chat
from server.launch.addresses import free_port

if TYPE_CHECKING:
    from server.engine.build import Engine
    from server.process.managed import ManagedServer

pytestmark = pytest.mark.real_server
TASK = "Which of these functions returns the largest value for x = 2?\n\n" + "\n".join(
    f"def f{i}(x):\n    return x * {i} + {i * i}\n" for i in range(12)
)


def _turn(core: Core, text: str) -> list[Event]:
    events: list[Event] = []
    asyncio.run(core.agent.run_turn(text, events.append))
    return events


def _lines(into: list[str]) -> Callable[[str, str], None]:
    return lambda _key, line: into.append(line)


def test_a_session_goes_on_after_a_server_restart_without_being_read_in_again(
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
    runtime = Runtime(workspace, config)
    lines: list[str] = []
    try:
        core = runtime.connect(ConnectRequest(), _lines(lines))
        _turn(core, TASK)
        runtime.restart_server(_lines(lines))
        assert any(line.startswith("saved the prompt cache (") for line in lines), lines
        assert any(line.startswith("restored the prompt cache: ") for line in lines), lines
        events = _turn(core, "And for x = 3?")
        [note] = [e for e in events if isinstance(e, Notice) and "prompt cache" in e.message]
        assert note.level == "info" and "restore took effect" in note.message
        first = next(e.stats for e in events if isinstance(e, StepStats))
        assert first.cache_n > first.prompt_n  # most of the prompt came from the restored slot
        session = core.session_id
    finally:
        runtime.shutdown()  # saves the slot again, then stops the server it started
    assert servers_on(managed_port) == []

    # The project memory changed the system prompt: the saved prefix no longer matches.
    (workspace / "AGENTS.md").write_text("Answer in one word.\n")
    again = Runtime(workspace, config)
    lines.clear()
    try:
        core = again.connect(ConnectRequest(resume=session), _lines(lines))
        assert any("not restored (the system prompt changed)" in line for line in lines), lines
        events = _turn(core, "And for x = 4?")
        assert not [e for e in events if isinstance(e, Notice) and "prompt cache" in e.message]
        first = next(e.stats for e in events if isinstance(e, StepStats))
        assert first.prompt_n > first.cache_n  # read in anew
    finally:
        again.shutdown()


@pytest.fixture
def smol_slots(
    engine: Engine,
    smollm2_path: Path,
    tmp_path: Path,
    start_server: Callable[[list[str], int], ManagedServer],
) -> tuple[ManagedServer, SlotCache]:
    folder = tmp_path / "slots"
    folder.mkdir()
    port = free_port()
    flags = ["-c", "2048", "-np", "1", "--slot-save-path", str(folder)]
    argv = [str(engine.binary), "-m", str(smollm2_path), *flags, "--port", str(port)]
    server = start_server(argv, port)
    return server, SlotCache(server.url, folder, max_mb=64, max_days=1)


def test_a_restore_the_next_request_cannot_use_is_reported(
    smol_slots: tuple[ManagedServer, SlotCache],
) -> None:
    server, cache = smol_slots
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": TASK}]
    chat(server.url, messages, max_tokens=4, temperature=0, timeout_s=600)
    assert cache.save("s1", prefix_of("smol", messages, [])).startswith("saved the prompt cache")
    n, line = cache.restore("s1", "smol", messages, [])
    assert n > 100 and line.startswith("restored the prompt cache")
    # Another conversation on the restored slot: nothing of it can be reused.
    other = [{"role": "user", "content": "Name three colours. " * 40}]
    _, timings = chat(server.url, other, max_tokens=4, temperature=0, timeout_s=600)
    stats_line = restore_effect(n, _as_stats(timings.prompt_n, timings.cache_n))
    assert stats_line.level == "warning" and "had no effect" in stats_line.message


def test_a_damaged_slot_file_falls_back_to_prefill(
    smol_slots: tuple[ManagedServer, SlotCache],
) -> None:
    server, cache = smol_slots
    messages = [{"role": "user", "content": "Say hi."}]
    chat(server.url, messages, max_tokens=2, temperature=0, timeout_s=600)
    cache.save("s2", prefix_of("smol", messages, []))
    (cache.folder / "s2.slot").write_bytes(b"not a slot file")
    n, line = cache.restore("s2", "smol", messages, [])
    assert n == 0 and "not restored" in line and "read in anew" in line
    _, timings = chat(server.url, messages, max_tokens=2, temperature=0, timeout_s=600)
    assert timings.prompt_n > 0  # the server still answers, prefilling


def _as_stats(prompt_n: int, cache_n: int) -> RequestStats:
    return RequestStats("server", 1.0, 1, prompt_n, cache_n, None, None, 1.0)

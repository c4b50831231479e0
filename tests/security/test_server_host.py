"""A profile cannot choose where the managed server listens, nor its API key: only the launcher's
own --host (loopback unless the user asks otherwise, with a key) reaches the command line."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.engine.dialect import Dialect
from server.engine.known_dialects import BEE_FORK as FORK
from server.engine.known_dialects import UPSTREAM
from server.launch.llama_argv import build_argv
from server.profiles.catalog import get_profile
from tests.server.test_launch import BIN, TARGET


@pytest.mark.parametrize(
    "extra",
    [
        ("--host", "0.0.0.0"),
        ("--host=0.0.0.0",),
        ("--host", "::", "--metrics"),
        ("--api-key", "shared", "--host", "192.168.1.5"),
        ("--port", "80", "--host", "0.0.0.0"),
    ],
)
@pytest.mark.parametrize("dialect", [FORK, UPSTREAM])
def test_profile_host_is_overridden_with_loopback(extra: tuple[str, ...], dialect: Dialect) -> None:
    profile = replace(get_profile("gemma4-31b-dflash-nospec"), extra_args=extra)
    argv = build_argv(BIN, profile, dialect, TARGET, None, port=8080)
    hosts = [argv[i + 1] for i, flag in enumerate(argv) if flag == "--host"]
    assert hosts == ["127.0.0.1"]
    assert not any(a.startswith("--host=") for a in argv)
    assert "--api-key" not in argv and "shared" not in argv
    assert [argv[i + 1] for i, flag in enumerate(argv) if flag == "--port"] == ["8080"]
    if "--metrics" in extra:
        assert "--metrics" in argv  # other profile flags still pass

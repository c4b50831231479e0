"""No test touches the user's own beecode dirs: tests/conftest.py moves data, state and config to
tmp dirs for every test, asked for or not (tests/mcp/test_lifecycle.py's scripted sessions and
checkpoints once went into the real data dir), and keeps the prepared engine and model cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.paths import cache_dir, config_dir, data_dir, state_dir
from tests.conftest import REAL_CACHE

HOME = Path(os.path.expanduser("~"))
USER_DIRS = [HOME / ".local/share/beecode", HOME / ".local/state/beecode", HOME / ".config/beecode"]


def test_a_test_that_asks_for_nothing_gets_tmp_dirs_and_the_real_cache(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    mine = [data_dir(), state_dir(), config_dir()]
    assert not set(mine) & set(USER_DIRS)
    assert all(folder.is_relative_to(tmp_path_factory.getbasetemp()) for folder in mine)
    assert cache_dir() == Path(REAL_CACHE)


def test_a_subprocess_of_a_test_gets_them_too() -> None:
    code = "from server.paths import data_dir; print(data_dir())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert Path(done.stdout.strip()) == data_dir()
    assert Path(done.stdout.strip()) not in USER_DIRS

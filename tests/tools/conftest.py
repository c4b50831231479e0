"""Fixtures for the tool tests: a real workspace in a tmp dir and a real git repo."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import git
import pytest

from tools.tool import ToolContext


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace)


@pytest.fixture
def repo(workspace: Path) -> Iterator[git.Repo]:
    with git.Repo.init(workspace, initial_branch="main") as repo:
        with repo.config_writer() as config:
            config.set_value("user", "name", "Test User")
            config.set_value("user", "email", "test@example.com")
            config.set_value("commit", "gpgsign", "false")
        yield repo

"""Temp projects for the project's checks (agent.feedback): real ruff, pytest and basedpyright
from beecode's own test environment, put in the project's ``.venv/bin`` as a project has them."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.agent.conftest import ws as ws  # the agent tests' workspace

OWN_BIN = Path(sys.executable).parent  # beecode's venv: the test extra installs the tools


def python_project(ws: Path, *tools: str) -> Path:
    """``ws`` as a Python project whose venv has ``tools`` (ruff, pytest)."""
    (ws / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n'
    )
    bin_dir = ws / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in tools:
        (bin_dir / tool).symlink_to(OWN_BIN / tool)
    return ws

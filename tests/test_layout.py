"""The checkout's packages are the ones imported, and the layering holds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["agent", "tools", "server", "skills"])
def test_package_imports_from_checkout(name: str) -> None:
    module = __import__(name)
    assert module.__file__ is not None
    assert Path(module.__file__).resolve().parent == ROOT / name


def test_import_contracts_hold() -> None:
    # import-linter: only agent.tui imports textual; tools and server never import agent.
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_core_does_not_load_textual_at_runtime() -> None:
    code = (
        "import sys, agent.cli, agent.events, tools.tool, server.paths;"
        "print('textual' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr

"""Skill folders written as other agents' users write them: real files in tmp dirs."""

from __future__ import annotations

from pathlib import Path

import pytest


def write_skill(parent: Path, folder: str, text: str | bytes, **files: str) -> Path:
    """parent/folder/SKILL.md with text (bytes as they are), plus files by relative path
    (``"scripts/x.py"`` is written as ``scripts__x.py=...``)."""
    root = parent / folder
    root.mkdir(parents=True, exist_ok=True)
    data = text if isinstance(text, bytes) else text.encode()
    (root / "SKILL.md").write_bytes(data)
    for name, content in files.items():
        path = root / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return root / "SKILL.md"


@pytest.fixture(autouse=True)
def _isolated(isolated_home: Path) -> None:
    """No user skills from the machine (tests/conftest.py)."""

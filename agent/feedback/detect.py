"""Which lint and test commands a project has: the configured ones, else those its files name.

Detection only looks: file names, ``package.json``'s scripts, and where a tool is installed (the
project's ``.venv``/``venv``, then ``PATH``). It never runs anything of the project's. Running
the command it finds does (a test suite is the repository's code), so the caller asks for it as
for a bash command (``agent.feedback.run``).
"""

from __future__ import annotations

import json
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent.config import Config

Lint = Literal["lint", "test"]
FILES = "{files}"  # in a lint command: the files the turn changed, quoted for the shell
_VENVS = (".venv", "venv")
_PYTEST_MARKS = ("pytest.ini", "conftest.py", "tests/conftest.py", "tox.ini", "setup.cfg")


@dataclass(frozen=True)
class CheckCommand:
    kind: Lint
    line: str  # for bash, for permission rules, and shown; may hold FILES
    detected: bool = False
    suffixes: tuple[str, ...] = ()  # a lint of these files only ("" : all); none changed: no run

    def for_files(self, files: list[str]) -> str:
        """The command line with the changed files in place of FILES (``.`` when none)."""
        if FILES not in self.line:
            return self.line
        mine = [f for f in files if not self.suffixes or f.endswith(self.suffixes)]
        mine = [f"./{f}" if f.startswith("-") else f for f in mine]  # a name, never an option
        return self.line.replace(FILES, " ".join(map(shlex.quote, mine)) or ".")

    def applies(self, files: list[str]) -> bool:
        """Whether a change to these files is this check's business."""
        return not self.suffixes or any(f.endswith(self.suffixes) for f in files)


def command_line(value: str | list[str]) -> str:
    """A configured command as one bash line (an argv list quoted word by word, but FILES)."""
    if isinstance(value, str):
        return value
    return " ".join(word if word == FILES else shlex.quote(word) for word in value)


def checks(workspace: Path, config: Config) -> dict[Lint, CheckCommand]:
    """The project's lint and test commands: configured, or detected where not."""
    found: dict[Lint, CheckCommand] = {}
    if config.lint_cmd is not None:
        found["lint"] = CheckCommand("lint", command_line(config.lint_cmd))
    elif (lint := detect_lint(workspace)) is not None:
        found["lint"] = lint
    if config.test_cmd is not None:
        found["test"] = CheckCommand("test", command_line(config.test_cmd))
    elif (test := detect_test(workspace)) is not None:
        found["test"] = test
    return {k: v for k, v in found.items() if v.line.strip()}


def installed(workspace: Path, name: str) -> Path | None:
    """``name`` in the project's virtual environment, else on PATH."""
    for venv in _VENVS:
        candidate = workspace / venv / "bin" / name
        if candidate.is_file():
            return candidate
    found = shutil.which(name)
    return Path(found) if found else None


def _tool(workspace: Path, name: str) -> str | None:
    """How a command line names the tool: relative to the workspace when it lives there."""
    path = installed(workspace, name)
    if path is None:
        return None
    if path.is_relative_to(workspace):
        return shlex.quote(str(path.relative_to(workspace)))
    return name if shutil.which(name) == str(path) else shlex.quote(str(path))


def _python(workspace: Path) -> bool:
    marks = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt")
    return any((workspace / m).is_file() for m in marks) or any(workspace.glob("*.py"))


def detect_lint(workspace: Path) -> CheckCommand | None:
    if _python(workspace) and (ruff := _tool(workspace, "ruff")):
        line = f"{ruff} check --no-cache --no-fix --output-format=concise -- {FILES}"
        return CheckCommand("lint", line, detected=True, suffixes=(".py", ".pyi"))
    if (workspace / "go.mod").is_file() and shutil.which("go"):
        return CheckCommand("lint", "go vet ./...", detected=True, suffixes=(".go",))
    if (workspace / "Cargo.toml").is_file() and shutil.which("cargo"):
        line = "cargo check --quiet --message-format=short"
        return CheckCommand("lint", line, detected=True, suffixes=(".rs",))
    return None


def detect_test(workspace: Path) -> CheckCommand | None:
    if _python(workspace) and (pytest := _tool(workspace, "pytest")) and _has_pytest(workspace):
        return CheckCommand("test", f"{pytest} -x -q", detected=True)
    if _npm_test(workspace) and shutil.which("npm"):
        return CheckCommand("test", "npm test", detected=True)
    if (workspace / "go.mod").is_file() and shutil.which("go"):
        return CheckCommand("test", "go test ./...", detected=True)
    if (workspace / "Cargo.toml").is_file() and shutil.which("cargo"):
        return CheckCommand("test", "cargo test", detected=True)
    return None


def _has_pytest(workspace: Path) -> bool:
    if any((workspace / mark).is_file() for mark in _PYTEST_MARKS):
        return True
    if (workspace / "tests").is_dir() or any(workspace.glob("test_*.py")):
        return True
    pyproject = workspace / "pyproject.toml"
    return pyproject.is_file() and "[tool.pytest" in _head(pyproject)


def _npm_test(workspace: Path) -> bool:
    """package.json names a test script other than npm init's placeholder."""
    package = workspace / "package.json"
    if not package.is_file():
        return False
    try:
        scripts = json.loads(_head(package)).get("scripts", {})
    except (ValueError, AttributeError):
        return False
    test = scripts.get("test") if isinstance(scripts, dict) else None
    return isinstance(test, str) and bool(test.strip()) and "no test specified" not in test


def _head(path: Path, limit: int = 200_000) -> str:
    """The start of a small project file (a hostile one may be huge, or no file at all)."""
    try:
        with path.open("rb") as f:
            return f.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return ""

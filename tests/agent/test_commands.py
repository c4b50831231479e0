"""The command registry's clash rule, and ``beecode skills list | show | new``."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from agent.cli import main
from agent.commands.load import load
from agent.commands.registry import Command, CommandRegistry, parse
from agent.config import Config
from tests.skills.conftest import write_skill


@pytest.fixture(autouse=True)
def isolated(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    return isolated_home


def skill(name: str, description: str = "d") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nbody\n"


def named(registry: CommandRegistry, name: str) -> Command:
    """The command ``registry`` holds as ``name``, which it must hold."""
    command = registry.get(name)
    assert command is not None, f"no command {name}"
    return command


def test_clash_rule_built_in_then_project_then_user_then_bundled() -> None:
    candidates = [
        Command("x", "bundled skill", source="bundled", kind="skill"),
        Command("x", "user command", source="user", kind="command"),
        Command("x", "project command", source="project", kind="command"),
        Command("x", "project skill", source="project", kind="skill"),
        Command("help", "a project skill named help", source="project", kind="skill"),
        Command("help", "Keys and commands"),
    ]
    registry = CommandRegistry.of(candidates)
    assert named(registry, "X").help == "project skill"
    assert named(registry, "help").kind == "built-in"
    assert len(registry.clashes) == 4  # each hidden one, once
    assert [c.name for c in registry.all()] == ["help", "x"]


def test_parse() -> None:
    assert parse("/team:review a b") == ("team:review", "a b")
    assert parse("/usr/bin/env python") is None and parse("//x") is None and parse("/") is None


def test_load_puts_skills_and_commands_in_one_registry(tmp_path: Path, isolated: Path) -> None:
    ws = Path.cwd()
    write_skill(ws / ".claude/skills", "help", skill("help"))
    write_skill(isolated / ".agents/skills", "user-only", skill("user-only").replace("body", "b"))
    hidden = "---\nname: hidden\ndescription: d\nuser-invocable: false\n---\nb\n"
    write_skill(ws / ".agents/skills", "hidden", hidden)
    write_skill(tmp_path / "team-skills", "shared", skill("shared"))
    loaded = load(ws, Config(skills_dirs=[str(tmp_path / "team-skills")]))
    assert named(loaded.registry, "shared").source == "user"
    assert named(loaded.registry, "help").kind == "built-in"
    assert any("/help" in c for c in loaded.registry.clashes)
    assert named(loaded.registry, "user-only").source == "user"
    assert loaded.registry.get("hidden") is None and loaded.skills.get("hidden") is not None
    assert named(loaded.registry, "write-tests").source == "bundled"


def test_skills_list_shows_where_from_and_what_was_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ws = Path.cwd()
    write_skill(ws / ".agents/skills", "mine", skill("mine", "My own skill."))
    broken = write_skill(ws / ".claude/skills", "broken", "---\nname: broken\n---\n")
    assert main(["skills", "list"]) == 0
    out = capsys.readouterr().out
    assert f"mine  [project] {ws / '.agents/skills/mine/SKILL.md'}" in out
    assert "(untrusted project: asks before use)" in out and "My own skill." in out
    assert f"skipped {broken}: no description in the frontmatter" in out
    assert "write-tests  [bundled]" in out


def test_skills_show_and_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "show", "new-python-project"]) == 0
    out = capsys.readouterr().out
    assert "scope: bundled" in out and "files: assets/pyproject.toml" in out
    assert "argument-hint: [project-name]" in out and "git init" in out
    assert main(["skills", "show", "nope"]) == 1


def test_skills_new_scaffolds_a_valid_skill(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "new", "release-notes"]) == 0
    made = Path.cwd() / ".beecode/skills/release-notes/SKILL.md"
    assert made.is_file()
    loaded = load(Path.cwd(), Config())
    found = loaded.skills.get("release-notes")
    assert found is not None and not found.warnings and found.scope == "project"
    assert main(["skills", "new", "release-notes"]) == 1  # never overwrites
    assert main(["skills", "new", "Bad_Name"]) == 2
    assert not (Path.cwd() / ".beecode/skills/Bad_Name").exists()
    assert main(["skills", "new", "--user", "mine"]) == 0
    assert (Path(str(Path.cwd().parent / "config/skills/mine/SKILL.md"))).is_file()


def test_the_wheel_ships_the_bundled_skills(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(root),
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.fail(done.stderr[-2000:])
    wheel = next((tmp_path / "dist").glob("beecode-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "skills/bundled/clean-commit/SKILL.md",
        "skills/bundled/clean-commit/scripts/review.py",
        "skills/bundled/mcp-server/references/server.py",
        "skills/bundled/new-python-project/assets/pyproject.toml",
        "skills/bundled/write-skill/references/FORMAT.md",
    ):
        assert expected in names

"""Where skills come from and which wins: real folders, a real git repository, symlinks."""

from __future__ import annotations

import subprocess
from pathlib import Path

from skills.discover import BUNDLED, Root, discover, standard_roots
from tests.skills.conftest import write_skill


def skill_text(name: str, description: str = "d") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"


def roots(
    ws: Path, home: Path, extra: list[Path] | None = None, trusted: bool = True
) -> list[Root]:
    return standard_roots(ws, home, home / "config", extra or [], trusted=trusted)


def test_every_location_in_order_project_over_user_over_bundled(
    tmp_path: Path, isolated_home: Path
) -> None:
    repo = tmp_path / "repo"
    ws = repo / "sub" / "ws"
    ws.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    write_skill(ws / ".agents/skills", "near", skill_text("near", "agents dir"))
    write_skill(ws / ".beecode/skills", "beecode", skill_text("beecode"))
    write_skill(ws / ".claude/skills", "claude", skill_text("claude"))
    write_skill(repo / ".claude/skills", "near", skill_text("near", "repo root"))
    write_skill(repo / ".agents/skills", "at-root", skill_text("at-root"))
    write_skill(tmp_path / ".agents/skills", "above-git", skill_text("above-git"))  # not walked
    write_skill(
        isolated_home / ".agents/skills", "clean-commit", skill_text("clean-commit", "mine")
    )
    write_skill(isolated_home / ".claude/skills", "user-claude", skill_text("user-claude"))
    write_skill(isolated_home / "config/skills", "user-beecode", skill_text("user-beecode"))
    write_skill(tmp_path / "extra", "extra", skill_text("extra"))
    found = discover(roots(ws, isolated_home, [tmp_path / "extra"]))
    by_name = {s.name: s for s in found.skills}
    assert {"near", "beecode", "claude", "at-root", "user-claude", "user-beecode", "extra"} <= set(
        by_name
    )
    assert "above-git" not in by_name
    assert by_name["near"].description == "agents dir"  # the nearest folder wins
    assert by_name["clean-commit"].description == "mine" and by_name["clean-commit"].scope == "user"
    assert by_name["write-tests"].scope == "bundled"
    assert [s.name for s in found.skills] == sorted(by_name)
    # Each hidden skill is reported once, naming both folders.
    assert len(found.clashes) == 2
    assert any("repo/.claude/skills/near" in c and "hidden by" in c for c in found.clashes)
    assert any(str(BUNDLED / "clean-commit") in c for c in found.clashes)


def test_without_a_repository_only_the_workspace_is_a_project(tmp_path: Path) -> None:
    ws = tmp_path / "plain" / "ws"
    ws.mkdir(parents=True)
    write_skill(tmp_path / "plain/.agents/skills", "parent", skill_text("parent"))
    found = discover(roots(ws, tmp_path / "nohome"))
    assert "parent" not in {s.name for s in found.skills}


def test_files_inside_a_skill_are_part_of_it(tmp_path: Path) -> None:
    base = tmp_path / "skills"
    write_skill(
        base,
        "big",
        skill_text("big"),
        **{
            "README.md": skill_text("readme"),
            "AGENTS.md": skill_text("agents"),
            "agents__openai.md": skill_text("openai"),
            "nested__SKILL.md": skill_text("nested"),
            "scripts__run.py": "print(1)\n",
        },
    )
    found = discover([Root(base, "user")])
    assert [s.name for s in found.skills] == ["big"] and not found.skipped


def test_grouped_and_symlinked_folders(tmp_path: Path) -> None:
    base = tmp_path / "skills"
    write_skill(base / ".curated", "grouped", skill_text("grouped"))  # openai/skills layout
    elsewhere = write_skill(tmp_path / "store", "linked", skill_text("linked")).parent
    (base / "linked").symlink_to(elsewhere, target_is_directory=True)
    (base / "loop").symlink_to(base, target_is_directory=True)  # must not recurse forever
    write_skill(base / "node_modules", "dep", skill_text("dep"))
    found = discover([Root(base, "user")])
    assert [s.name for s in found.skills] == ["grouped", "linked"]
    linked = found.get("linked")
    assert linked is not None and linked.location == base / "linked/SKILL.md"


def test_a_broken_skill_is_skipped_with_its_path_and_reason(tmp_path: Path) -> None:
    base = tmp_path / "proj/.claude/skills"
    write_skill(base, "good", skill_text("good"))
    broken = write_skill(base, "bad_Name", "---\nname: bad_Name\nno description here\n---\n")
    found = discover([Root(base, "project")])
    assert [s.name for s in found.skills] == ["good"]
    assert len(found.skipped) == 1 and found.skipped[0][0] == broken
    assert "YAML" in found.skipped[0][1] or "description" in found.skipped[0][1]


def test_untrusted_project_skills_are_marked(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write_skill(ws / ".agents/skills", "proj", skill_text("proj"))
    found = discover(roots(ws, tmp_path / "nohome", trusted=False))
    proj, bundled = found.get("proj"), found.get("write-tests")
    assert proj is not None and not proj.trusted
    assert bundled is not None and bundled.trusted


def test_bundled_skills_all_load_cleanly() -> None:
    found = discover([Root(BUNDLED, "bundled")])
    names = [s.name for s in found.skills]
    assert names == [
        "clean-commit",
        "mcp-server",
        "new-python-project",
        "write-skill",
        "write-tests",
    ]
    assert not found.skipped and all(not s.warnings for s in found.skills)
    assert all(len(s.body.splitlines()) <= 25 for s in found.skills)  # short: tokens cost

"""The map built from a real git repository: ranking, budget, cache, stability, .gitignore."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.context.prompt import TokenCounter
from agent.context.repomap import RepoMap
from tests.agent.repomap.kit import DEFINED, SOURCES, git, make_repo

COUNT = TokenCounter(None).count_text


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def new_map(root: Path, cache: Path, budget: int = 4096) -> RepoMap:
    return RepoMap(root, budget, COUNT, cache_folder=cache)


def test_every_language_is_in_the_map(repo: Path, tmp_path: Path) -> None:
    text = new_map(repo, tmp_path / "cache").current()
    for name in DEFINED:
        assert f"{name}:" in text, name
    assert "def make_engine():" in text and "func NewServer() *Server" in text


def test_the_map_leans_toward_the_focused_files(tmp_path: Path) -> None:
    files = {f"pkg/mod{i}.py": f"def helper_number_{i}():\n    pass\n" for i in range(12)}
    uses = "".join(f"from pkg.mod{i} import helper_number_{i}\n" for i in range(12))
    files["main.py"] = uses + "".join(f"helper_number_{i}()\n" for i in range(12))
    root = make_repo(tmp_path / "repo", files)
    budget = 60  # room for only a few definitions
    plain = new_map(root, tmp_path / "c1", budget).current()
    focused = new_map(root, tmp_path / "c2", budget).current({"pkg/mod7.py"})
    assert "helper_number_7" not in plain
    assert "def helper_number_7():" in focused


@pytest.mark.parametrize("budget", [40, 120, 400])
def test_the_map_keeps_to_its_budget(repo: Path, tmp_path: Path, budget: int) -> None:
    text = new_map(repo, tmp_path / "cache", budget).current()
    assert text and COUNT(text) <= budget


def test_no_budget_no_map(repo: Path, tmp_path: Path) -> None:
    assert new_map(repo, tmp_path / "cache", 0).current() == ""


def test_unchanged_files_come_from_the_cache_and_a_change_rebuilds(
    repo: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = new_map(repo, cache)
    text = first.current()
    assert first.last is not None and first.last.parsed == len(SOURCES)
    build = first.last
    assert first.current() == text and first.last is build  # same input: no build at all
    again = new_map(repo, cache)  # a new session: every file's tags from the cache
    assert again.current() == text and again.last is not None and again.last.parsed == 0
    core = repo / "app" / "core.py"
    core.write_text(core.read_text() + "\ndef stop_engine():\n    pass\n")
    changed = again.current()
    assert again.last.parsed == 1 and "def stop_engine():" in changed


def test_the_map_is_byte_stable(repo: Path, tmp_path: Path) -> None:
    texts = {new_map(repo, tmp_path / f"cache{i}").current({"app/use.py"}) for i in range(3)}
    warm = new_map(repo, tmp_path / "cache0")
    texts.add(warm.current({"app/use.py"}))
    assert len(texts) == 1


def test_gitignored_files_are_left_out(repo: Path, tmp_path: Path) -> None:
    (repo / ".gitignore").write_text("build/\nsecret_*.py\n")
    (repo / "build").mkdir()
    (repo / "build" / "gen.py").write_text("def generated_thing():\n    pass\n")
    (repo / "secret_keys.py").write_text("def ignored_function():\n    pass\n")
    (repo / "fresh.py").write_text("def untracked_but_kept():\n    pass\n")
    text = new_map(repo, tmp_path / "cache").current()
    assert "generated_thing" not in text and "ignored_function" not in text
    assert "fresh.py" in text


def test_a_folder_without_git_is_walked_past_its_junk(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.js").write_text("function depThing() {}\n")
    (root / "src").mkdir()
    (root / "src" / "main.go").write_text("package main\n\nfunc mainEntry() {}\n")
    text = new_map(root, tmp_path / "cache").current()
    assert "src/main.go:" in text and "depThing" not in text


def test_broken_and_hostile_files_do_not_stop_the_map(repo: Path, tmp_path: Path) -> None:
    (repo / "bad.py").write_bytes(b"def broken(:\n\xff\xfe\x00 class")
    (repo / "noise.rs").write_bytes(os.urandom(2048))
    os.mkfifo(repo / "pipe.py")
    (repo / "link.py").symlink_to(tmp_path / "elsewhere.py")
    (tmp_path / "elsewhere.py").write_text("def far_away_secret():\n    pass\n")
    git(repo, "add", "-A")
    cache = tmp_path / "cache"
    (cache).mkdir()
    text = new_map(repo, cache).current()
    assert "app/core.py:" in text and "far_away_secret" not in text
    for path in cache.glob("*.json"):
        path.write_text("{not json")  # a damaged cache counts as empty
    assert new_map(repo, cache).current() == text

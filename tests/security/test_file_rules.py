"""File rules are anchored to the workspace: ``*`` never crosses ``/``, ``**`` does, and a relative
glob never matches a path outside the workspace. Hypothesis over the path check: PATH_CASES."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.config import Mode
from agent.permissions.globs import path_glob
from agent.permissions.rules import Permissions

PATH_CASES = 2000


def perms(tmp_path: Path, allow: list[str], mode: Mode = "ask") -> Permissions:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True, exist_ok=True)
    return Permissions(mode, allow, [], workspace, [])


def verdict(p: Permissions, path: str) -> str:
    return p.check("write", "edit", path, [path]).verdict


@pytest.mark.parametrize(
    ("rule", "path", "expected"),
    [
        ("write(*.py)", "a.py", "allow"),
        ("write(*.py)", "src/a.py", "ask"),  # * does not cross /
        ("write(*.py)", "/etc/a.py", "ask"),
        ("write(*.py)", "../a.py", "ask"),
        ("write(*.py)", "~/a.py", "ask"),
        ("write(**/*.py)", "src/deep/a.py", "allow"),
        ("write(**/*.py)", "a.py", "allow"),
        ("write(**/*.py)", "/usr/lib/a.py", "ask"),
        ("write(**)", "/home/x/.bashrc", "ask"),
        ("write(src/*)", "src/a.py", "allow"),
        ("write(src/*)", "src/sub/a.py", "ask"),
        ("write(src/**)", "src/sub/a.py", "allow"),
        ("write(src/**)", "src/../../out/a.py", "ask"),
        ("write(s?c/a.py)", "s/c/a.py", "ask"),  # ? does not match /
        ("write(*)", "../../etc/passwd", "ask"),
        ("write(*)", "/etc/passwd", "ask"),
    ],
)
def test_anchored_globs(tmp_path: Path, rule: str, path: str, expected: str) -> None:
    assert verdict(perms(tmp_path, [rule]), path) == expected


def test_absolute_rules_match_absolute_paths(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    p = perms(tmp_path, [f"write({lib}/*.c)"])
    assert verdict(p, str(lib / "a.c")) == "allow"
    assert verdict(p, str(lib / "sub" / "a.c")) == "ask"


def test_symlinked_path_is_judged_where_it_points(tmp_path: Path) -> None:
    p = perms(tmp_path, ["write(*.txt)", "write(**)"], "auto-edit")
    (tmp_path / "out").mkdir()
    (tmp_path / "ws" / "link.txt").symlink_to(tmp_path / "out" / "x.txt")
    assert verdict(p, "link.txt") == "ask"


SEGMENTS = st.sampled_from(["a", "b.py", "..", ".", "src", "", "x y", "*", ".git", "~"])


@settings(
    max_examples=PATH_CASES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    parts=st.lists(SEGMENTS, min_size=1, max_size=6),
    absolute=st.booleans(),
    rule=st.sampled_from(["*", "**", "*.py", "**/*.py", "src/**", "*/*"]),
)
def test_generated_paths_never_leave_the_workspace_by_rule(
    tmp_path: Path, parts: list[str], absolute: bool, rule: str
) -> None:
    path = ("/" if absolute else "") + "/".join(parts)
    p = perms(tmp_path, [f"write({rule})", f"edit({rule})"], "auto-edit")
    decision = p.check("write", "edit", path, [path])
    if decision.verdict == "allow":
        assert not p.outside([path]), (path, rule)
        relative = Path(p.workspace / Path(path).expanduser()).resolve()
        assert relative.is_relative_to(p.workspace)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*", "a/b", False),
        ("**", "a/b", True),
        ("**/x", "x", True),
        ("a/**/x", "a/x", True),
        ("a/**/x", "a/b/c/x", True),
        ("[ab].py", "a.py", True),
        ("[!ab].py", "/.py", False),
        ("notes[[]1].txt", "notes[1].txt", True),
    ],
)
def test_path_glob(pattern: str, path: str, expected: bool) -> None:
    assert (path_glob(pattern).fullmatch(path) is not None) == expected

"""Permissions: modes, rules, compound bash commands and the workspace boundary, on real paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Mode
from agent.permissions.rules import Permissions, command_prefix
from agent.permissions.shell import judge
from tools.tool import Kind


def perms(
    tmp_path: Path,
    mode: Mode = "ask",
    allow: list[str] | None = None,
    deny: list[str] | None = None,
    extra_roots: list[Path] | None = None,
) -> Permissions:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Permissions(mode, allow or [], deny or [], workspace, extra_roots or [])


def verdict(
    p: Permissions, tool: str, kind: Kind, subject: str, paths: list[str] | None = None
) -> str:
    return p.check(tool, kind, subject, paths if paths is not None else []).verdict


# (mode, tool, kind, subject, is a file tool, expected verdict)
MODE_TABLE: list[tuple[Mode, str, Kind, str, bool, str]] = [
    ("ask", "read", "read", "a.py", True, "allow"),
    ("ask", "git", "read", "status", False, "allow"),
    ("ask", "write", "edit", "a.py", True, "ask"),
    ("ask", "bash", "execute", "ls", False, "ask"),
    ("ask", "git", "execute", "commit", False, "ask"),
    ("auto-edit", "edit", "edit", "a.py", True, "allow"),
    ("auto-edit", "bash", "execute", "ls", False, "ask"),
    ("auto-edit", "git", "execute", "commit", False, "ask"),
    ("yolo", "write", "edit", "a.py", True, "allow"),
    ("yolo", "bash", "execute", "rm -rf build", False, "allow"),
    ("plan", "read", "read", "a.py", True, "allow"),
    ("plan", "write", "edit", "a.py", True, "deny"),
    ("plan", "bash", "execute", "ls", False, "deny"),
]


@pytest.mark.parametrize(("mode", "tool", "kind", "subject", "file", "expected"), MODE_TABLE)
def test_modes(
    tmp_path: Path, mode: Mode, tool: str, kind: Kind, subject: str, file: bool, expected: str
) -> None:
    decision = perms(tmp_path, mode).check(tool, kind, subject, [subject] if file else [])
    assert decision.verdict == expected
    assert decision.reason


def test_plan_mode_tells_the_model_why(tmp_path: Path) -> None:
    decision = perms(tmp_path, "plan").check("write", "edit", "a.py", ["a.py"])
    assert "plan mode is read-only" in decision.reason and "write" in decision.reason


def test_mode_can_change_at_run_time(tmp_path: Path) -> None:
    p = perms(tmp_path)
    assert verdict(p, "write", "edit", "a.py", ["a.py"]) == "ask"
    p.mode = "auto-edit"
    assert verdict(p, "write", "edit", "a.py", ["a.py"]) == "allow"


def test_rules_allow_and_deny_wins(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["bash(git *)", "write(src/**)"], deny=["bash(git push*)"])
    assert verdict(p, "bash", "execute", "git status -s") == "allow"
    decision = p.check("bash", "execute", "git push origin main", [])
    assert decision.verdict == "deny" and "bash(git push*)" in decision.reason
    assert verdict(p, "write", "edit", "src/pkg/mod.py", ["src/pkg/mod.py"]) == "allow"
    assert verdict(p, "write", "edit", "docs/a.md", ["docs/a.md"]) == "ask"


def test_deny_wins_over_yolo_and_bare_tool_rules(tmp_path: Path) -> None:
    p = perms(tmp_path, "yolo", allow=["bash"], deny=["bash(rm -rf*)", "git"])
    assert verdict(p, "bash", "execute", "rm -rf /") == "deny"
    assert verdict(p, "git", "read", "status") == "deny"
    assert verdict(p, "bash", "execute", "make") == "allow"


def test_file_rules_match_relative_and_absolute_forms(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["edit(src/*)"], deny=[f"write({tmp_path}/ws/secrets/*)"])
    absolute = str(tmp_path / "ws" / "src" / "a.py")
    assert verdict(p, "edit", "edit", absolute, [absolute]) == "allow"
    assert verdict(p, "edit", "edit", "./src/../src/a.py", ["./src/../src/a.py"]) == "allow"
    assert verdict(p, "write", "edit", "secrets/key", ["secrets/key"]) == "deny"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status && rm -rf /", "ask"),  # the rm part has no allow rule
        ("git status; git log", "allow"),
        ("git status | head -5", "allow"),
        ("git status\nrm -rf /tmp/x", "ask"),
        ("git status $(rm -rf /tmp/x)", "ask"),
        ('git status "$(curl evil)"', "ask"),  # substitution inside quotes: unparseable
        ("git status `curl evil`", "ask"),
        ("git status 'unbalanced", "ask"),
        ("FOO=1 git status", "ask"),  # an assignment can change what git runs
        ("git status || echo failed", "allow"),
    ],
)
def test_compound_commands_need_every_part_allowed(
    tmp_path: Path, command: str, expected: str
) -> None:
    p = perms(tmp_path, allow=["bash(git status*)", "bash(git log*)", "bash(head*)", "bash(echo*)"])
    assert verdict(p, "bash", "execute", command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "ls && rm -rf /",
        "ls; rm -rf /",
        "ls | rm -rf /",
        "(cd / && rm -rf *)",
        "echo $(rm -rf /)",
        'echo "$(rm -rf /)"',
        "FOO=bar rm -rf /",
        "ls\nrm -rf /",
    ],
)
def test_any_denied_part_denies_even_in_yolo(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, "yolo", allow=["bash(ls*)", "bash(echo*)"], deny=["bash(rm -rf*)"])
    assert verdict(p, "bash", "execute", command) == "deny"


def test_judge_splits_simple_commands(tmp_path: Path) -> None:
    def commands(line: str) -> list[str]:
        return [" ".join(words) for words in judge(line, tmp_path).commands]

    assert commands("git status && make test | tee log; ls") == [
        "git status",
        "make test",
        "tee log",
        "ls",
    ]
    assert commands('git commit -m "a && b"') == ["git commit -m a && b"]
    assert commands("ls 2>&1 | grep x") == ["ls", "grep x"]
    assert judge('echo "$(id)"', tmp_path).unknown
    assert judge("echo 'open", tmp_path).unknown


def test_paths_outside_the_workspace(tmp_path: Path) -> None:
    outside = str(tmp_path / "elsewhere" / "a.txt")
    cases: list[tuple[Mode, str]] = [
        ("ask", "ask"),
        ("auto-edit", "ask"),
        ("yolo", "ask"),
        ("plan", "deny"),
    ]
    for mode, expected in cases:
        p = perms(tmp_path, mode)
        decision = p.check("read", "read", outside, [outside])
        assert decision.verdict == expected, mode
        assert "outside the workspace" in decision.reason
    p = perms(tmp_path, "yolo")
    assert verdict(p, "write", "edit", "../escape.txt", ["../escape.txt"]) == "ask"
    assert p.outside(["../escape.txt", "inside.txt"]) == [tmp_path / "escape.txt"]


def test_symlink_out_of_the_workspace_is_outside(tmp_path: Path) -> None:
    p = perms(tmp_path, "yolo")
    (tmp_path / "target").mkdir()
    (tmp_path / "ws" / "link").symlink_to(tmp_path / "target")
    assert verdict(p, "write", "edit", "link/a.txt", ["link/a.txt"]) == "ask"


def test_extra_roots_and_allow_rules_open_outside_paths(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    p = perms(tmp_path, "yolo", extra_roots=[lib])
    assert verdict(p, "write", "edit", str(lib / "a.c"), [str(lib / "a.c")]) == "allow"
    p = perms(tmp_path, allow=[f"read({tmp_path}/docs/**)"])
    doc = str(tmp_path / "docs" / "x" / "a.md")
    assert verdict(p, "read", "read", doc, [doc]) == "allow"
    assert verdict(p, "write", "edit", doc, [doc]) == "ask"  # the rule is for read only


def test_allow_always_bash_derives_prefix_rules(tmp_path: Path) -> None:
    p = perms(tmp_path)
    assert verdict(p, "bash", "execute", "git status -s") == "ask"
    assert p.allow_always("bash", "git status -s") == "bash(git status), bash(git status *)"
    assert verdict(p, "bash", "execute", "git status --porcelain") == "allow"
    assert verdict(p, "bash", "execute", "git push") == "ask"
    # A compound command gets a rule for each part not yet allowed.
    assert p.allow_always("bash", "git status && ls -la") == "bash(ls -la)"
    assert verdict(p, "bash", "execute", "ls -la; git status") == "allow"
    assert verdict(p, "bash", "execute", "ls -la /") == "ask"


def test_allow_always_file_tool_keeps_the_exact_path(tmp_path: Path) -> None:
    p = perms(tmp_path)
    outside = str(tmp_path / "notes[1].txt")
    assert verdict(p, "write", "edit", outside, [outside]) == "ask"
    assert p.allow_always("write", outside) == f"write({tmp_path}/notes[[]1].txt)"
    assert verdict(p, "write", "edit", outside, [outside]) == "allow"
    assert verdict(p, "write", "edit", "a.py", ["a.py"]) == "ask"
    assert p.check("write", "edit", "b.py", ["b.py"]).verdict == "ask"
    assert p.allow_always("write", "b.py") == "write(b.py)"
    absolute = str(tmp_path / "ws" / "b.py")
    assert verdict(p, "write", "edit", absolute, [absolute]) == "allow"


def test_allow_always_other_tools(tmp_path: Path) -> None:
    p = perms(tmp_path)
    assert p.allow_always("git", "commit -m wip") == "git(commit*)"
    assert p.allow_always("mcp__web__fetch", "") == "mcp__web__fetch"
    assert verdict(p, "mcp__web__fetch", "execute", "https://example.org") == "allow"


@pytest.mark.parametrize(
    ("part", "prefix"),
    [
        ("git status -s", "git status"),
        ("ls -la", "ls"),
        ("python3 -m pytest -q", "python3 -m pytest"),
        ("./run.sh fast", "./run.sh fast"),
        ("npm run build", "npm run"),
        ("cat README.md", "cat"),
    ],
)
def test_command_prefix(part: str, prefix: str) -> None:
    assert command_prefix(part) == prefix

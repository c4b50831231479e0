"""Where hooks come from and what a matcher takes: Claude Code's tool names mapped to
beecode's, beecode's own names, MCP tools as mcp__server__tool, and the config's TOML form."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import ConfigError, load_config
from agent.hooks.load import matches, tool_input, tool_names


class McpLike:
    server, remote_name = "github", "create_issue"


@pytest.mark.parametrize(
    ("matcher", "name", "tool", "taken"),
    [
        ("Bash", "bash", None, True),
        ("bash", "bash", None, True),  # beecode's own name
        ("Bash", "read", None, False),
        ("Edit|Write", "edit", None, True),
        ("MultiEdit", "edit", None, True),
        ("Edit|Write", "write", None, True),
        ("Write", "edit", None, False),
        ("Notebook.*", "read", None, False),
        ("mcp__github__.*", "github_create_issue", McpLike(), True),
        ("mcp__github__create_issue", "github_create_issue", McpLike(), True),
        ("mcp__memory__.*", "github_create_issue", McpLike(), False),
        ("*", "git", None, True),
        ("", "todo", None, True),
        ("TodoWrite", "todo", None, True),
        ("Rea", "read", None, False),  # the whole name, not a part of it
        ("[unclosed", "[unclosed", None, True),  # no regex: compared as it is
    ],
)
def test_matchers(matcher: str, name: str, tool: object, taken: bool) -> None:
    assert matches(matcher, tool_names(name, tool)) is taken


def test_hooks_are_told_claude_codes_names() -> None:
    assert tool_names("edit", None)[0] == "Edit"
    assert tool_names("github_create_issue", McpLike())[0] == "mcp__github__create_issue"
    assert tool_names("git", None) == ["git"]
    args = tool_input({"path": "a.py", "old": "x", "new": "y"})
    assert args["file_path"] == "a.py" and args["old_string"] == "x" and args["path"] == "a.py"


HOOKS_TOML = """
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "guard.sh"
timeout = 5
"""


def test_the_config_takes_claude_codes_shape_in_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "config"
    user.mkdir()
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(user))
    (user / "config.toml").write_text(HOOKS_TOML)
    ws = tmp_path / "ws"
    (ws / ".beecode").mkdir(parents=True)
    (ws / ".beecode" / "config.toml").write_text(HOOKS_TOML.replace("guard.sh", "repo.sh"))
    config = load_config(ws)
    [group] = config.hooks["PreToolUse"]  # the project's, untrusted, left out and named
    assert group["hooks"][0]["command"] == "guard.sh" and group["matcher"] == "Bash"
    assert "hooks" in config.ignored_project_settings
    (user / "config.toml").write_text(f"trusted_workspaces = [{str(ws)!r}]\n" + HOOKS_TOML)
    groups = load_config(ws).hooks["PreToolUse"]
    assert [g["hooks"][0]["command"] for g in groups] == ["guard.sh", "repo.sh"]


@pytest.mark.parametrize(
    "bad",
    [
        "hooks = 3",
        "[[hooks.Stop]]\nhooks = [{ type = 'command' }]",
        "[[hooks.Stop]]\nhooks = [{ command = 'x', timeout = 'soon' }]",
        "[[hooks.Stop]]\nmatcher = 1\nhooks = []",
    ],
)
def test_a_malformed_hooks_table_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(tmp_path))
    (tmp_path / "config.toml").write_text(bad + "\n")
    with pytest.raises(ConfigError, match=r"config.toml:\d+: hooks: "):
        load_config(tmp_path)

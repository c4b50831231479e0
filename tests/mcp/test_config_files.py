"""MCP servers from the files users already have: Claude Code's .mcp.json (wrapped or bare),
Cursor's and VS Code's, beecode's TOML and the user's own mcp.json; messy JSONC, variables,
errors with file and line, and a project's servers waiting for the user's approval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.config import Config, load_config
from agent.mcp_config import approve, mcp_setup, read_servers_file, strip_jsonc

pytestmark = pytest.mark.usefixtures("beecode_dirs")

MESSY = """{
\t// the servers this repo uses
\t"mcpServers": {
\t\t"db": {"command": "db-mcp", "args": ["--url", "${DB_URL:-sqlite:///x.db}",], "env": {},
\t\t\t"alwaysAllow": ["query"], /* unknown fields are ignored */ },
\t\t"web": {"type": "http", "url": "https://${env:HOST}/mcp", "headers": {"A": "b // c"}},
\t\t"feed": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
\t},
}"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def trusted(workspace: Path) -> Config:
    return Config(trusted_workspaces=[str(workspace)])


def test_messy_jsonc_with_tabs_comments_and_trailing_commas_reads(workspace: Path) -> None:
    write(workspace / ".mcp.json", MESSY)
    setup = mcp_setup(workspace, trusted(workspace), environ={"HOST": "h.example"})
    assert setup.notes == []
    assert setup.servers == {
        "db": {
            "type": "stdio",
            "command": "db-mcp",
            "args": ["--url", "sqlite:///x.db"],
            "env": {},
        },
        "web": {"type": "http", "url": "https://h.example/mcp", "headers": {"A": "b // c"}},
        "feed": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
    }
    assert setup.origins["db"] == str(workspace / ".mcp.json")


def test_strings_keep_what_looks_like_comments_and_lines_keep_their_numbers() -> None:
    text = '{"a": "x/*y*/z", // c\n "b": "\\"//", /* two\nlines */ "c": [1,],}'
    assert json.loads(strip_jsonc(text)) == {"a": "x/*y*/z", "b": '"//', "c": [1]}
    assert strip_jsonc(text).count("\n") == text.count("\n")


def test_every_shape_and_the_later_file_wins(workspace: Path, tmp_path: Path) -> None:
    write(
        workspace / ".vscode/mcp.json",
        '{"servers": {"a": {"command": "vs"}, "v": {"command": "v"}}}',
    )
    write(workspace / ".cursor/mcp.json", '{"mcpServers": {"a": {"command": "cursor"}}}')
    write(workspace / ".mcp.json", '{"p": {"command": "plugin-style"}}')  # no final newline
    write(tmp_path / "config/mcp.json", '{"mcpServers": {"u": {"url": "http://127.0.0.1:1/mcp"}}}')
    write(tmp_path / "config/config.toml", '[mcp_servers.t]\ncommand = "toml"\n')
    config = load_config(workspace)
    setup = mcp_setup(workspace, config)
    # The user's own files need no approval; the project's three wait for it.
    assert sorted(setup.servers) == ["t", "u"]
    assert setup.unapproved == {"a": "cursor", "v": "v", "p": "plugin-style"}
    setup = mcp_setup(workspace, trusted(workspace))
    assert setup.servers["a"]["command"] == "cursor"
    assert setup.servers["p"] == {"type": "stdio", "command": "plugin-style"}


def test_an_unset_variable_skips_that_server_only(workspace: Path) -> None:
    write(workspace / ".mcp.json", MESSY)
    setup = mcp_setup(workspace, trusted(workspace), environ={})
    assert sorted(setup.servers) == ["db", "feed"]
    assert setup.notes == [
        f"mcp server 'web' ({workspace / '.mcp.json'}): ${{HOST}} is not set; not started"
    ]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        (
            '{\n\t"mcpServers": {\n\t\t"a": {"command": "x"}\n\t\t"b": {}\n}}',
            4,
            "invalid JSON: Expecting ','",
        ),
        ('{"mcpServers": [1]}', 1, "mcpServers must be an object"),
        ("[1, 2]", 1, "must be an object of servers"),
    ],
)
def test_an_unreadable_file_is_named_with_its_line(
    workspace: Path, text: str, line: int, reason: str
) -> None:
    path = write(workspace / ".mcp.json", text)
    setup = mcp_setup(workspace, trusted(workspace))
    assert setup.servers == {}
    assert len(setup.notes) == 1 and setup.notes[0].startswith(f"mcp: {path}:{line}: {reason}")


def test_a_bad_entry_is_named_and_the_others_start(workspace: Path) -> None:
    write(
        workspace / ".mcp.json",
        '{"a": {"args": []}, "b": {"command": "b", "env": {"N": 3}},'
        ' "c": {"type": "ws", "url": "u"}, "d": {"command": "d", "disabled": true}}',
    )
    setup = mcp_setup(workspace, trusted(workspace))
    assert setup.servers == {"b": {"type": "stdio", "command": "b", "env": {"N": "3"}}}
    where = workspace / ".mcp.json"
    assert setup.notes == [
        f"mcp server 'a' ({where}): type http needs url (a string); not started",
        f"mcp server 'c' ({where}): unknown type 'ws' (use stdio, http or sse); not started",
    ]


def test_approval_is_remembered_per_workspace_and_bound_to_the_command(
    workspace: Path, tmp_path: Path
) -> None:
    write(
        workspace / ".mcp.json",
        '{"mcpServers": {"a": {"command": "one"}, "b": {"command": "two"}}}',
    )
    approve(workspace, ["a"], Config())
    setup = mcp_setup(workspace, Config())
    assert (list(setup.servers), setup.unapproved) == (["a"], {"b": "two"})
    other = tmp_path / "other"
    write(other / ".mcp.json", '{"mcpServers": {"a": {"command": "one"}}}')
    assert mcp_setup(other.resolve(), Config()).unapproved == {"a": "one"}
    write(workspace / ".mcp.json", '{"mcpServers": {"a": {"command": "one", "args": ["--evil"]}}}')
    assert mcp_setup(workspace, Config()).unapproved == {"a": "one --evil"}


def test_read_servers_file_takes_a_bom(tmp_path: Path) -> None:
    path = write(tmp_path / "m.json", '\ufeff{"servers": {"x": {"command": "x"}}}')
    assert read_servers_file(path) == {"x": {"command": "x"}}

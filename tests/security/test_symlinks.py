"""Symlinks cannot carry a read, a write, a grep or project memory out of the workspace, including
a link swapped in after the path was checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.context.memory import memory_files, project_memory
from tools.files import ReadTool, WriteTool, atomic_write, read_text
from tools.paths import resolve_in_workspace
from tools.search import GrepTool
from tools.textcodec import UTF8
from tools.tool import ToolContext, ToolError


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "credentials").write_text("aws_secret_access_key = SECRET123\n")
    return secret


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "dir").mkdir(parents=True)
    (root / "dir" / "a.txt").write_text("inside\n")
    return root.resolve()


def swap_for_link(path: Path, target: Path) -> None:
    """What a background job could do between the check and the open."""
    path.rename(path.with_name(path.name + ".moved"))
    path.symlink_to(target)


def test_write_after_the_directory_is_swapped_for_a_link(ws: Path, outside: Path) -> None:
    full = resolve_in_workspace("dir/new.txt", ToolContext(workspace=ws))
    swap_for_link(ws / "dir", outside)
    with pytest.raises(ToolError, match="symlink"):
        atomic_write(full, "pwned\n", UTF8, "x")
    assert sorted(p.name for p in outside.iterdir()) == ["credentials"]


def test_overwrite_after_the_file_is_swapped_for_a_link(ws: Path, outside: Path) -> None:
    full = resolve_in_workspace("dir/a.txt", ToolContext(workspace=ws))
    swap_for_link(full, outside / "credentials")
    atomic_write(full, "new\n", UTF8, "x")  # replaces the link itself, never what it points to
    assert (outside / "credentials").read_text().startswith("aws_secret")
    assert not full.is_symlink() and full.read_text() == "new\n"


@pytest.mark.parametrize("swapped", ["dir", "dir/a.txt"])
def test_read_after_a_swap(ws: Path, outside: Path, swapped: str) -> None:
    full = resolve_in_workspace("dir/a.txt", ToolContext(workspace=ws))
    target = outside if swapped == "dir" else outside / "credentials"
    if swapped == "dir":
        (outside / "a.txt").write_text("SECRET123\n")
    swap_for_link(ws / swapped, target)
    with pytest.raises(ToolError, match="symlink"):
        read_text(full, "dir/a.txt")


async def test_tools_refuse_links_out(ws: Path, outside: Path) -> None:
    (ws / "link").symlink_to(outside / "credentials")
    (ws / "linkdir").symlink_to(outside)
    ctx = ToolContext(workspace=ws)
    for args in ({"path": "link"}, {"path": "linkdir/credentials"}):
        result = await ReadTool().run(args, ctx)
        assert result.is_error and "SECRET123" not in result.output
    result = await WriteTool().run({"path": "linkdir/x", "content": "x"}, ctx)
    assert result.is_error and not (outside / "x").exists()


@pytest.mark.parametrize("layout", ["file link", "dir link", "nested"])
async def test_python_grep_never_follows_links_out(ws: Path, outside: Path, layout: str) -> None:
    if layout == "file link":
        (ws / "creds").symlink_to(outside / "credentials")
    elif layout == "dir link":
        (ws / "linked").symlink_to(outside)
    else:
        (ws / "dir" / "deeper").symlink_to(outside / "credentials")
    ctx = ToolContext(workspace=ws)
    result = await GrepTool(rg=None).run({"pattern": "SECRET1[2]3"}, ctx)
    assert "SECRET123" not in result.output
    (ws / "dir" / "b.txt").write_text("SECRET123 inside\n")
    result = await GrepTool(rg=None).run({"pattern": "SECRET123"}, ctx)
    assert "dir/b.txt" in result.output


@pytest.mark.parametrize("name", ["AGENTS.md", "CLAUDE.md"])
def test_memory_file_linking_out_is_not_read(
    ws: Path, outside: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(outside / "config"))
    (ws / ".git").mkdir()
    (ws / name).symlink_to(outside / "credentials")
    (ws / "dir" / name).symlink_to(ws / "dir" / "a.txt")  # inside the project: fine
    assert "SECRET123" not in project_memory(ws / "dir")
    assert memory_files(ws / "dir") == [ws / "dir" / name]

"""The workspace boundary: file tools refuse paths that leave it, however they are spelled."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tools.files import ReadTool, WriteTool, workspace_text
from tools.paths import PathOutsideWorkspace, resolve_in_workspace, shown_path
from tools.tool import ToolContext, ToolError


@pytest.fixture
def outside(workspace: Path) -> Path:
    secret = workspace.parent / "secret.txt"
    secret.write_text("top secret\n")
    return secret


def test_inside_paths_resolve(ctx: ToolContext, workspace: Path) -> None:
    assert resolve_in_workspace("src/../a.py", ctx) == workspace / "a.py"
    assert resolve_in_workspace(str(workspace / "b"), ctx) == workspace / "b"
    assert resolve_in_workspace("", ctx) == workspace
    assert shown_path(workspace / "src/a.py", ctx) == "src/a.py"
    assert shown_path(workspace, ctx) == "."


@pytest.mark.parametrize("spelling", ["../secret.txt", "sub/../../secret.txt", "ABSOLUTE", "link"])
def test_escapes_are_refused(
    ctx: ToolContext, workspace: Path, outside: Path, spelling: str
) -> None:
    (workspace / "link").symlink_to(outside)
    path = str(outside) if spelling == "ABSOLUTE" else spelling
    with pytest.raises(PathOutsideWorkspace, match=f"resolves to {outside}, outside the workspace"):
        resolve_in_workspace(path, ctx)


def test_directory_symlink_out_is_refused_for_new_files(
    ctx: ToolContext, workspace: Path, outside: Path
) -> None:
    (workspace / "out").symlink_to(outside.parent)
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace("out/new.txt", ctx)


def test_symlink_within_workspace_is_fine(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "real.txt").write_text("x")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    assert resolve_in_workspace("alias.txt", ctx) == workspace / "real.txt"


def test_extra_roots_are_allowed(ctx: ToolContext, outside: Path) -> None:
    granted = replace(ctx, extra_roots=[outside.parent])
    assert resolve_in_workspace(str(outside), granted) == outside


def test_nul_byte_is_a_clear_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="bad path"):
        resolve_in_workspace("a\0b", ctx)


async def test_file_tools_return_the_refusal_as_data(
    ctx: ToolContext, workspace: Path, outside: Path
) -> None:
    read = await ReadTool().run({"path": "../secret.txt"}, ctx)
    assert read.is_error and "outside the workspace" in read.output
    write = await WriteTool().run({"path": "../evil.txt", "content": "x"}, ctx)
    assert write.is_error and "outside the workspace" in write.output
    assert not (workspace.parent / "evil.txt").exists()
    assert outside.read_text() == "top secret\n"


def test_workspace_text_never_reads_out_of_the_workspace(workspace: Path, outside: Path) -> None:
    # The checks that quote a file back to the model read through this; a hostile repository's
    # symlink or a model's ../ must not bring a file from outside into a note.
    (workspace / "link.txt").symlink_to(outside)
    (workspace / "own.txt").write_text("mine\n")
    assert workspace_text(workspace, "own.txt") == "mine\n"
    assert workspace_text(workspace, "link.txt") is None
    assert workspace_text(workspace, "../secret.txt") is None
    assert workspace_text(workspace, "missing.txt") is None

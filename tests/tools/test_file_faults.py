"""edit, write and read on what a hostile or confused model can hand them: files in other
encodings, special files, huge lines, bad paths. Every byte not asked to change is kept."""

from __future__ import annotations

import asyncio
import os
import tracemalloc
from pathlib import Path

import pytest

from tools.edit import EditTool
from tools.files import ReadTool, WriteTool
from tools.tool import Tool, ToolContext

edit, write, read = EditTool(), WriteTool(), ReadTool()
LATIN1 = "# réglages\nnom = café\nport = 80\n".encode("latin-1") + b"\xff\xfe trailing \x80\n"


async def test_edit_keeps_every_latin1_byte_it_was_not_asked_to_change(
    ctx: ToolContext, workspace: Path
) -> None:
    (workspace / "app.cfg").write_bytes(LATIN1)
    result = await edit.run({"path": "app.cfg", "old": "port = 80", "new": "port = 8080"}, ctx)
    assert not result.is_error, result.output
    assert (workspace / "app.cfg").read_bytes() == LATIN1.replace(b"port = 80", b"port = 8080")
    assert "not valid UTF-8" in result.output
    assert "\udcff" not in result.meta["diff"] and "\ufffd" in result.meta["diff"]


async def test_edit_refuses_non_ascii_text_in_a_legacy_file(
    ctx: ToolContext, workspace: Path
) -> None:
    (workspace / "app.cfg").write_bytes(LATIN1)
    result = await edit.run({"path": "app.cfg", "old": "port = 80", "new": "port = 8€"}, ctx)
    assert result.is_error and "not valid UTF-8" in result.output
    assert (workspace / "app.cfg").read_bytes() == LATIN1


MARKS = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\0\0"}


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-8"])
async def test_edit_keeps_a_byte_order_marked_encoding(
    ctx: ToolContext, workspace: Path, codec: str
) -> None:
    mark = MARKS.get(codec, b"\xef\xbb\xbf")
    text = "naïve = 1\r\nother = 2\r\n"
    (workspace / "u.txt").write_bytes(mark + text.encode(codec))
    shown = await read.run({"path": "u.txt"}, ctx)
    assert shown.output == "1\tnaïve = 1\n2\tother = 2"
    result = await edit.run({"path": "u.txt", "old": "other = 2", "new": "other = 3"}, ctx)
    assert not result.is_error, result.output
    after = mark + text.replace("2", "3").encode(codec)
    assert (workspace / "u.txt").read_bytes() == after


async def test_write_over_a_utf16_file_keeps_its_encoding(
    ctx: ToolContext, workspace: Path
) -> None:
    (workspace / "u.txt").write_bytes("old\n".encode("utf-16"))
    result = await write.run({"path": "u.txt", "content": "new ü\n"}, ctx)
    assert not result.is_error, result.output
    assert (workspace / "u.txt").read_bytes() == "new ü\n".encode("utf-16")


async def test_write_refuses_a_lone_surrogate_and_leaves_the_file(
    ctx: ToolContext, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("kept\n")
    result = await write.run({"path": "a.txt", "content": "bad \ud800 text"}, ctx)
    assert result.is_error and "lone surrogate" in result.output
    assert (workspace / "a.txt").read_text() == "kept\n"
    assert [p.name for p in workspace.iterdir()] == ["a.txt"]  # no temporary file left


@pytest.mark.parametrize("tool", [read, edit, write])
async def test_a_fifo_is_refused_without_blocking(
    ctx: ToolContext, workspace: Path, tool: Tool
) -> None:
    os.mkfifo(workspace / "pipe")
    args = {"path": "pipe", "old": "a", "new": "b", "content": "x"}
    wanted = {"read": ["path"], "edit": ["path", "old", "new"], "write": ["path", "content"]}
    call = tool.run({k: args[k] for k in wanted[tool.name]}, ctx)
    result = await asyncio.wait_for(call, timeout=30)
    assert result.is_error and result.output == "pipe is a FIFO, not a regular file; not opened"


@pytest.mark.parametrize(
    "path", ["a\0b", "loop/x", "loop", "x\ud800y"], ids=["nul", "loop-child", "loop", "surrogate"]
)
async def test_bad_paths_are_error_results(ctx: ToolContext, workspace: Path, path: str) -> None:
    (workspace / "loop").symlink_to(workspace / "loop2")
    (workspace / "loop2").symlink_to(workspace / "loop")
    for tool, extra in ((read, {}), (write, {"content": "x"}), (edit, {"old": "a", "new": "b"})):
        result = await tool.run({"path": path, **extra}, ctx)
        assert result.is_error and result.output.startswith("bad path"), result.output


async def test_a_range_of_a_huge_one_line_file_is_read_in_bounded_memory(
    ctx: ToolContext, workspace: Path
) -> None:
    big = workspace / "one-line.min.js"
    with big.open("wb") as file:
        for _ in range(64):  # 64 MiB on one line, then a second line
            file.write(b"x" * (1 << 20))
        file.write(b"\nsecond\n")
    tracemalloc.start()
    try:
        result = await read.run({"path": "one-line.min.js", "offset": 1, "limit": 2}, ctx)
        refused = await read.run({"path": "one-line.min.js"}, ctx)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not result.is_error
    assert result.output.endswith(f"... [{64 * (1 << 20) - 2000} chars omitted]\n2\tsecond")
    assert refused.is_error and "(2 lines)" in refused.output
    assert peak < 8 << 20, f"peak {peak} bytes for a 64 MiB line"

"""read, write and ls against real files, with their bad inputs."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from tools.files import LsTool, ReadTool, WriteTool
from tools.tool import ToolContext

read, write, ls = ReadTool(), WriteTool(), LsTool()


def lines(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1))


async def test_read_numbers_lines(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    result = await read.run({"path": "a.txt"}, ctx)
    assert result.output == "1\talpha\n2\tbeta"
    assert not result.is_error


async def test_read_range_says_where_to_continue(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text(lines(12))
    middle = await read.run({"path": "a.txt", "offset": 9, "limit": 2}, ctx)
    assert middle.output == " 9\tline 9\n10\tline 10\n[lines 9-10 of 12; next: offset=11]"
    end = await read.run({"path": "a.txt", "offset": 11}, ctx)
    assert end.output == "11\tline 11\n12\tline 12\n[lines 11-12 of 12]"
    past = await read.run({"path": "a.txt", "offset": 13}, ctx)
    assert past.is_error and past.output == "offset 13 is past the end (12 lines)"


async def test_read_refuses_binary_files(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "blob.bin").write_bytes(b"GGUF\0\1\2" * 10)
    result = await read.run({"path": "blob.bin"}, ctx)
    assert result.is_error
    assert result.output == "blob.bin is a binary file (70 bytes); not shown"


async def test_read_refuses_huge_files_without_a_range(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "big.txt").write_text(lines(1000))
    small = replace(ctx, max_output_chars=1000)
    size = (workspace / "big.txt").stat().st_size
    refused = await read.run({"path": "big.txt"}, small)
    assert refused.is_error
    assert refused.output == (
        f"big.txt is {size} bytes (1000 lines), too big to read whole; "
        "read a range, e.g. offset=1, limit=53"
    )
    suggested = await read.run({"path": "big.txt", "offset": 1, "limit": 53}, small)
    assert suggested.output.endswith("[lines 1-53 of 1000; next: offset=54]")
    ranged = await read.run({"path": "big.txt", "offset": 500, "limit": 3}, small)
    assert ranged.output.splitlines()[0] == "500\tline 500"


async def test_read_range_stops_at_output_budget(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "big.txt").write_text(lines(1000))
    small = replace(ctx, max_output_chars=200)
    result = await read.run({"path": "big.txt", "offset": 1, "limit": 1000}, small)
    body, note = result.output.rsplit("\n", 1)
    last = int(body.splitlines()[-1].split("\t")[0])
    assert note == f"[lines 1-{last} of 1000; next: offset={last + 1}]"
    assert 5 < last < 20 and len(body) <= 200


async def test_read_cuts_over_long_lines(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "min.js").write_text("x" * 2500 + "\n")
    result = await read.run({"path": "min.js", "offset": 1}, ctx)
    assert result.output == "1\t" + "x" * 2000 + "... [500 chars omitted]"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("missing.txt", "no such file: missing.txt"),
        ("sub", "sub is a directory; use ls"),
    ],
)
async def test_read_bad_paths(ctx: ToolContext, workspace: Path, path: str, message: str) -> None:
    (workspace / "sub").mkdir()
    result = await read.run({"path": path}, ctx)
    assert result.is_error and result.output == message


async def test_read_empty_file_and_bad_range(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "empty").write_text("")
    assert (await read.run({"path": "empty"}, ctx)).output == "(empty file)"
    bad = await read.run({"path": "empty", "offset": 0}, ctx)
    assert bad.is_error and bad.output == "offset and limit must be at least 1"


async def test_write_creates_parents_atomically(ctx: ToolContext, workspace: Path) -> None:
    result = await write.run({"path": "deep/er/new.py", "content": "print('hi')\n"}, ctx)
    assert result.output == "created deep/er/new.py (1 line)"
    assert (workspace / "deep/er/new.py").read_text() == "print('hi')\n"
    assert os.listdir(workspace / "deep/er") == ["new.py"]
    assert result.meta["path"] == "deep/er/new.py"
    assert result.meta["diff"] == (
        "--- /dev/null\n+++ b/deep/er/new.py\n@@ -0,0 +1 @@\n+print('hi')\n"
    )


async def test_write_replaces_by_rename_and_keeps_mode(ctx: ToolContext, workspace: Path) -> None:
    target = workspace / "run.sh"
    target.write_text("echo old\n")
    target.chmod(0o750)
    inode = target.stat().st_ino
    result = await write.run({"path": "run.sh", "content": "echo new\n"}, ctx)
    assert result.output == "wrote run.sh (1 line)"
    assert target.read_text() == "echo new\n"
    assert target.stat().st_ino != inode  # a new file renamed into place, not rewritten in place
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert sorted(os.listdir(workspace)) == ["run.sh"]
    assert "-echo old\n+echo new\n" in result.meta["diff"]


async def test_write_of_the_same_content_changes_nothing(ctx: ToolContext, workspace: Path) -> None:
    target = workspace / "same.txt"
    target.write_text("a\nb\n")
    mtime = target.stat().st_mtime_ns
    result = await write.run({"path": "same.txt", "content": "a\nb\n"}, ctx)
    assert result.output == "same.txt already holds this content (2 lines); nothing changed"
    assert target.stat().st_mtime_ns == mtime and not result.is_error


async def test_write_new_file_mode_follows_umask(ctx: ToolContext, workspace: Path) -> None:
    old = os.umask(0o027)
    try:
        await write.run({"path": "f.txt", "content": "x"}, ctx)
    finally:
        os.umask(old)
    assert stat.S_IMODE((workspace / "f.txt").stat().st_mode) == 0o640


async def test_write_keeps_content_byte_exact(ctx: ToolContext, workspace: Path) -> None:
    content = "a\r\nb\n\tc ü"
    await write.run({"path": "x.txt", "content": content}, ctx)
    assert (workspace / "x.txt").read_bytes() == content.encode()


async def test_write_of_python_that_does_not_compile_says_so(
    ctx: ToolContext, workspace: Path
) -> None:
    result = await write.run({"path": "bad.py", "content": "def f(:\n    pass\n"}, ctx)
    assert not result.is_error  # the file is written; the warning is for the model
    assert result.output.startswith("created bad.py (2 lines)\nWarning: bad.py line 1: SyntaxError")
    assert (workspace / "bad.py").read_text() == "def f(:\n    pass\n"
    fine = await write.run({"path": "bad.txt", "content": "def f(:\n"}, ctx)
    assert fine.output == "created bad.txt (1 line)"  # only Python files are compiled


async def test_write_to_a_directory_fails(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "d").mkdir()
    result = await write.run({"path": "d", "content": "x"}, ctx)
    assert result.is_error and result.output == "d is a directory"


async def test_write_missing_content_is_reported(ctx: ToolContext) -> None:
    result = await write.run({"path": "x"}, ctx)
    assert result.is_error and result.output == "missing required field 'content'"


async def test_ls_lists_sorted_with_directories_marked(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "b.txt").write_text("")
    (workspace / "a").mkdir()
    (workspace / ".env").write_text("")
    assert (await ls.run({}, ctx)).output == ".env\na/\nb.txt"
    assert (await ls.run({"path": "a"}, ctx)).output == "(empty directory)"
    on_file = await ls.run({"path": "b.txt"}, ctx)
    assert on_file.is_error and on_file.output == "b.txt is a file; use read"
    missing = await ls.run({"path": "nope"}, ctx)
    assert missing.is_error and missing.output == "no such directory: nope"

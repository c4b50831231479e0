"""edit against real files: unique, repeated, replace_all, near misses, CRLF."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.edit import EditTool
from tools.tool import ToolContext

edit = EditTool()

SOURCE = """\
def greet(name):
    print("hello", name)


def main():
    greet("world")
    greet("moon")
"""


@pytest.fixture
def source(workspace: Path) -> Path:
    path = workspace / "app.py"
    path.write_text(SOURCE)
    return path


async def test_unique_match_is_replaced(ctx: ToolContext, source: Path) -> None:
    result = await edit.run({"path": "app.py", "old": '"hello"', "new": '"hi"'}, ctx)
    assert result.output == "edited app.py: 1 replacement at line 2"
    assert source.read_text() == SOURCE.replace('"hello"', '"hi"')
    assert result.meta["path"] == "app.py"
    assert '-    print("hello", name)\n+    print("hi", name)\n' in result.meta["diff"]
    assert sorted(p.name for p in source.parent.iterdir()) == ["app.py"]


async def test_repeated_match_is_refused_with_its_lines(ctx: ToolContext, source: Path) -> None:
    result = await edit.run({"path": "app.py", "old": "greet(", "new": "welcome("}, ctx)
    assert result.is_error
    assert result.output == (
        "old occurs 3 times in app.py (lines 1, 6, 7); "
        "add surrounding lines to make it unique, or set replace_all"
    )
    assert source.read_text() == SOURCE


async def test_replace_all(ctx: ToolContext, source: Path) -> None:
    args = {"path": "app.py", "old": "greet(", "new": "welcome(", "replace_all": True}
    result = await edit.run(args, ctx)
    assert result.output == "edited app.py: 3 replacements at lines 1, 6, 7"
    assert source.read_text() == SOURCE.replace("greet(", "welcome(")


async def test_near_miss_shows_the_closest_lines(ctx: ToolContext, source: Path) -> None:
    old = 'def main():\n    greet("wrld")'
    result = await edit.run({"path": "app.py", "old": old, "new": "x"}, ctx)
    assert result.is_error
    assert result.output.startswith("old not found in app.py; closest match, lines 5-6 (")
    assert result.output.endswith('similar):\n5\tdef main():\n6\t    greet("world")')
    assert source.read_text() == SOURCE


async def test_old_and_new_swapped_or_the_change_made_already_is_said(
    ctx: ToolContext, source: Path
) -> None:
    swapped = {"path": "app.py", "old": 'greet("earth")', "new": 'greet("moon")'}
    result = await edit.run(swapped, ctx)
    assert result.is_error and "but new is there already" in result.output
    assert "old and new are swapped" in result.output
    assert source.read_text() == SOURCE


async def test_an_edit_sent_again_onto_its_own_result_changes_nothing(
    ctx: ToolContext, source: Path
) -> None:
    added = {"path": "app.py", "old": "def main()", "new": "def main() -> None"}
    assert not (await edit.run(added, ctx)).is_error
    again = await edit.run(added, ctx)  # would make "def main() -> None -> None"
    assert (
        again.output == "app.py already holds this change (old is only inside new); nothing changed"
    )
    assert not again.is_error  # the file is as asked: no failed step
    assert source.read_text() == SOURCE.replace("def main()", "def main() -> None")
    # Where old also stands without new around it, the edit is made there.
    source.write_text("x = 1\nx = 1  # one\n")
    one = {"path": "app.py", "old": "x = 1", "new": "x = 1  # one", "replace_all": True}
    assert not (await edit.run(one, ctx)).is_error


async def test_an_edit_of_the_file_name_is_told_the_mv_command(
    ctx: ToolContext, source: Path
) -> None:
    # Asked to rename a file, a small model puts the file's name in old.
    result = await edit.run({"path": "app.py", "old": "app.py", "new": "lib/main.py"}, ctx)
    assert result.is_error and result.output == (
        "old not found in app.py: edit changes a file's text. To rename or move the file "
        "itself, run in bash: mkdir -p lib && mv app.py lib/main.py"
    )
    result = await edit.run({"path": "app.py", "old": "app.py", "new": "the main one"}, ctx)
    assert result.output.endswith("To rename or move the file itself, use mv in bash")
    assert source.read_text() == SOURCE


async def test_whitespace_only_difference_is_matched(ctx: ToolContext, source: Path) -> None:
    # A two-line function written as one line, as a small model does.
    old = 'def greet(name): print("hello", name)'
    new = 'def greet(name): print("hi", name)'
    result = await edit.run({"path": "app.py", "old": old, "new": new}, ctx)
    assert (
        result.output
        == "edited app.py: 1 replacement at lines 1-2 (old matched but for whitespace)"
    )
    assert source.read_text() == SOURCE.replace('def greet(name):\n    print("hello", name)', new)


async def test_whitespace_difference_that_breaks_python_is_named(
    ctx: ToolContext, source: Path
) -> None:
    # Matched loosely, the new line's indent would leave the next line out of the block.
    old = 'def main():\n  greet("world")'
    new = 'def main():\n  greet("sun")'
    result = await edit.run({"path": "app.py", "old": old, "new": new}, ctx)
    assert result.output == (
        "old not found in app.py; lines 5-6 differ from it only in whitespace:\n"
        '5\tdef main():\n6\t    greet("world")'
    )
    assert source.read_text() == SOURCE


async def test_loose_match_must_be_unique(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "set.cfg").write_text("a = 1\nb = 2\na  =  1\n")
    result = await edit.run({"path": "set.cfg", "old": "a =\t1", "new": "a = 3"}, ctx)
    assert result.is_error and (workspace / "set.cfg").read_text() == "a = 1\nb = 2\na  =  1\n"


async def test_nothing_close(ctx: ToolContext, source: Path) -> None:
    result = await edit.run({"path": "app.py", "old": "zzzzqqqq 12345", "new": "x"}, ctx)
    assert result.output == (
        "old not found in app.py, nor anything close; read the file, copy text exactly"
    )


async def test_edit_that_breaks_python_says_so(ctx: ToolContext, source: Path) -> None:
    result = await edit.run({"path": "app.py", "old": "def main():", "new": "def main()"}, ctx)
    assert not result.is_error
    assert result.output == (
        "edited app.py: 1 replacement at line 5\nWarning: app.py line 5: SyntaxError: expected ':'"
    )


async def test_crlf_file_is_edited_with_lf_text(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await edit.run({"path": "win.txt", "old": "one\ntwo", "new": "1\n2"}, ctx)
    assert not result.is_error, result.output
    assert path.read_bytes() == b"1\r\n2\r\nthree\r\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"old": "", "new": "x"}, "old is empty; to create or overwrite a file use write"),
        ({"old": "main", "new": "main"}, "old and new are the same; nothing to change"),
        ({"old": "x"}, "missing required field 'new'"),
        (
            {"old": "x", "new": "y", "replace_all": "yes"},
            "field 'replace_all' must be boolean, got string",
        ),
    ],
)
async def test_bad_arguments(
    ctx: ToolContext, source: Path, args: dict[str, object], message: str
) -> None:
    result = await edit.run({"path": "app.py", **args}, ctx)
    assert result.is_error and result.output == message
    assert source.read_text() == SOURCE


async def test_binary_and_missing_files(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "b.bin").write_bytes(b"\0\0abc")
    binary = await edit.run({"path": "b.bin", "old": "abc", "new": "x"}, ctx)
    assert binary.output == "b.bin is a binary file (5 bytes); not shown"
    missing = await edit.run({"path": "nope.py", "old": "a", "new": "b"}, ctx)
    assert missing.output == "no such file: nope.py"

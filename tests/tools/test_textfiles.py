"""The file tools through an editor (``ToolContext.text_files``): an editor whose buffers differ
from the disk, as unsaved files do. Reads see the buffer, writes land in it (and on the disk
where the editor did not save), paths are confined as for the disk, and a failing editor is an
error result."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tools.edit import EditTool
from tools.files import ReadTool, WriteTool
from tools.tool import ToolContext


@dataclass
class Buffers:
    """An editor: its open files' text by path; ``saves``: a write saves to the disk too, with
    CRLF endings (as an editor may save a Windows file)."""

    buffers: dict[Path, str] = field(default_factory=dict)
    reads: bool = True
    writes: bool = True
    saves: bool = False
    failing: bool = False
    asked: list[tuple[str, Path]] = field(default_factory=list)

    def read_text(self, path: Path) -> str:
        self._ask("read", path)
        return self.buffers[path] if path in self.buffers else path.read_text()

    def write_text(self, path: Path, text: str) -> None:
        self._ask("write", path)
        self.buffers[path] = text
        if self.saves:
            path.write_bytes(text.replace("\n", "\r\n").encode())

    def _ask(self, verb: str, path: Path) -> None:
        assert path.is_absolute()
        self.asked.append((verb, path))
        if self.failing:
            raise ConnectionError("the editor went away")


@pytest.fixture
def app(workspace: Path) -> Path:
    path = workspace / "app.py"
    path.write_text("x = 1\n")
    return path


@pytest.fixture
def editor(app: Path) -> Buffers:
    return Buffers({app: "x = 1\ny = 2\n"})  # y = 2 is typed in the editor, not saved


def through(editor: Buffers, workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace, text_files=editor)


async def test_read_sees_the_unsaved_buffer(workspace: Path, app: Path, editor: Buffers) -> None:
    ctx = through(editor, workspace)
    assert (await ReadTool().run({"path": "app.py"}, ctx)).output == "1\tx = 1\n2\ty = 2"
    ranged = await ReadTool().run({"path": "app.py", "offset": 2}, ctx)
    assert ranged.output == "2\ty = 2\n[lines 2-2 of 2]"
    editor.buffers[app] = "".join(f"line {n}\n" for n in range(1, 5001))
    big = await ReadTool().run({"path": "app.py"}, ctx)
    assert big.is_error and "(5000 lines), too big to read whole" in big.output
    assert editor.asked == [("read", app)] * 3


async def test_edit_lands_in_the_buffer_and_on_the_disk(
    workspace: Path, app: Path, editor: Buffers
) -> None:
    ctx = through(editor, workspace)
    result = await EditTool().run({"path": "app.py", "old": "y = 2", "new": "y = 3"}, ctx)
    assert result.output == "edited app.py: 1 replacement at line 2"
    assert editor.buffers[app] == "x = 1\ny = 3\n"
    # The editor kept it in its buffer only: beecode wrote the disk too.
    assert app.read_text() == "x = 1\ny = 3\n"
    assert "-y = 2\n+y = 3\n" in result.meta["diff"]
    assert editor.asked == [("read", app), ("write", app)]


async def test_a_saving_editor_keeps_its_own_file(
    workspace: Path, app: Path, editor: Buffers
) -> None:
    editor.saves = True
    ctx = through(editor, workspace)
    await EditTool().run({"path": "app.py", "old": "y = 2", "new": "y = 3"}, ctx)
    assert app.read_bytes() == b"x = 1\r\ny = 3\r\n"  # the editor's save, not rewritten


async def test_write_creates_and_overwrites_through_the_editor(
    workspace: Path, app: Path, editor: Buffers
) -> None:
    ctx = through(editor, workspace)
    made = await WriteTool().run({"path": "new.txt", "content": "fresh\n"}, ctx)
    assert made.output == "created new.txt (1 line)"
    assert editor.buffers[workspace / "new.txt"] == "fresh\n"
    assert (workspace / "new.txt").read_text() == "fresh\n"
    same = await WriteTool().run({"path": "app.py", "content": "x = 1\ny = 2\n"}, ctx)
    assert "already holds this content" in same.output  # the buffer's, not the disk's
    wrote = await WriteTool().run({"path": "app.py", "content": "z = 0\n"}, ctx)
    assert "-y = 2\n" in wrote.meta["diff"] and editor.buffers[app] == "z = 0\n"


async def test_paths_outside_the_workspace_never_reach_the_editor(
    workspace: Path, editor: Buffers
) -> None:
    outside = workspace.parent / "secret.txt"
    outside.write_text("key\n")
    ctx = through(editor, workspace)
    read = await ReadTool().run({"path": str(outside)}, ctx)
    wrote = await WriteTool().run({"path": "../secret.txt", "content": "x"}, ctx)
    assert read.is_error and wrote.is_error and "outside the workspace" in read.output
    assert editor.asked == [] and outside.read_text() == "key\n"


async def test_a_failing_editor_is_an_error_result(
    workspace: Path, app: Path, editor: Buffers
) -> None:
    editor.failing = True
    ctx = through(editor, workspace)
    read = await ReadTool().run({"path": "app.py"}, ctx)
    assert read.is_error
    assert read.output == "the editor could not read app.py: the editor went away"
    edited = await EditTool().run({"path": "app.py", "old": "x = 1", "new": "x = 2"}, ctx)
    assert edited.is_error and app.read_text() == "x = 1\n"
    editor.reads = False  # the write itself fails now: nothing is written anywhere
    made = await WriteTool().run({"path": "new.txt", "content": "fresh\n"}, ctx)
    assert made.output == "the editor could not write new.txt: the editor went away"
    assert not (workspace / "new.txt").exists()


async def test_an_editor_that_only_reads_leaves_writes_to_the_disk(
    workspace: Path, app: Path, editor: Buffers
) -> None:
    editor.writes = False
    ctx = through(editor, workspace)
    await EditTool().run({"path": "app.py", "old": "y = 2", "new": "y = 3"}, ctx)
    assert app.read_text() == "x = 1\ny = 3\n"  # the buffer's text, edited, on the disk
    assert editor.asked == [("read", app)] and editor.buffers[app] == "x = 1\ny = 2\n"

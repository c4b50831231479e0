"""`beecode acp`'s file tools through the editor (``fs/read_text_file``, ``fs/write_text_file``)
where it offers them: a real subprocess, the SDK's own client holding buffers that differ from
the disk (unsaved text), on a scripted model server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from acp import Client, text_block
from acp.schema import FileSystemCapabilities

from agent.faces.acp.files import EditorError, EditorFiles
from tests.acp.editor import beecode_acp
from tests.acp.model_server import Model, call, model_server, text
from tools.files import ReadTool
from tools.tool import ToolContext

pytestmark = pytest.mark.usefixtures("beecode_dirs")
BOTH = FileSystemCapabilities(read_text_file=True, write_text_file=True)
AUTO_EDIT = ("--permission-mode", "auto-edit")


@pytest.fixture
def model() -> Iterator[tuple[Model, str]]:
    scripted = Model()
    with model_server(scripted) as url:
        yield scripted, url


@pytest.fixture
def app(workspace: Path) -> Path:
    path = workspace / "app.py"
    path.write_text("x = 1\n")
    return path


def result_of(scripted: Model, request: int) -> str:
    """The last tool result the model was sent in its ``request``-th request."""
    return str(scripted.requests[request]["messages"][-1]["content"])


async def test_reads_and_writes_go_through_the_editors_buffers(
    workspace: Path, app: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [
        call("read", {"path": "app.py"}, "r1"),
        call("edit", {"path": "app.py", "old": "y = 2", "new": "y = 3"}, "e1"),
        call("write", {"path": "new.txt", "content": "fresh\n"}, "w1"),
        text("Done."),
    ]
    async with beecode_acp(workspace, "--endpoint", url, *AUTO_EDIT, fs=BOTH) as (conn, editor):
        editor.buffers[str(app)] = "x = 1\ny = 2\n"  # typed in the editor, not saved
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("y to 3")])
        assert done.stop_reason == "end_turn"
    assert result_of(scripted, 1) == "1\tx = 1\n2\ty = 2"  # the buffer, not the disk
    assert result_of(scripted, 2) == "edited app.py: 1 replacement at line 2"
    assert editor.buffers[str(app)] == "x = 1\ny = 3\n"
    assert editor.buffers[str(workspace / "new.txt")] == "fresh\n"
    # This editor keeps writes in its buffers: beecode wrote the disk too (git, tests, undo).
    assert app.read_text() == "x = 1\ny = 3\n"
    assert (workspace / "new.txt").read_text() == "fresh\n"
    new = str(workspace / "new.txt")
    sid = session.session_id
    assert editor.file_requests == [
        ("read", str(app), sid),
        ("read", str(app), sid),
        ("write", str(app), sid),
        ("write", new, sid),
    ]


async def test_the_permission_preview_and_the_diff_are_of_the_editors_buffer(
    workspace: Path, app: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [
        call("read", {"path": "app.py"}, "r1"),
        call("edit", {"path": "app.py", "old": "y = 2", "new": "y = 3"}, "e1"),
        text("Done."),
    ]
    async with beecode_acp(workspace, "--endpoint", url, fs=BOTH) as (conn, editor):
        editor.buffers[str(app)] = "x = 1\ny = 2\n"  # typed in the editor, not saved
        editor.answers = ["allow_once", "allow_once"]
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("y to 3")])
    [asked] = [a for a in editor.asked if a.tool_call_id == "e1"]
    # The file's diff against the buffer (the disk's "x = 1" alone holds no "y = 2" to replace)
    assert "@@ -1,2 +1,2 @@\\n x = 1\\n-y = 2\\n+y = 3" in str(asked.content)
    finished = [u for u in editor.of("tool_call_update") if u.tool_call_id == "e1"][-1]
    [diff] = [c for c in finished.content if c.type == "diff"]
    assert (diff.old_text, diff.new_text) == ("x = 1\ny = 2\n", "x = 1\ny = 3\n")
    assert "before" not in (finished.raw_output or {})  # the buffer is not sent back twice


async def test_a_file_the_prompt_names_is_attached_as_the_editor_holds_it(
    workspace: Path, app: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [text("y is 2.")]
    async with beecode_acp(workspace, "--endpoint", url, fs=BOTH) as (conn, editor):
        editor.buffers[str(app)] = "x = 1\ny = 2\n"  # typed in the editor, not saved
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(
            session_id=session.session_id, prompt=[text_block("what is y in app.py?")]
        )
    asked = str(scripted.requests[0]["messages"][-1]["content"])
    assert asked.endswith("app.py:\n1\tx = 1\n2\ty = 2")  # the buffer, not the disk's "x = 1"


@pytest.mark.parametrize("reads", [False, True], ids=["no fs", "reads only"])
async def test_what_the_editor_does_not_offer_goes_to_the_disk(
    workspace: Path, app: Path, model: tuple[Model, str], reads: bool
) -> None:
    scripted, url = model
    scripted.replies = [
        call("read", {"path": "app.py"}, "r1"),
        call("write", {"path": "app.py", "content": "x = 2\n"}, "w1"),
        text("Done."),
    ]
    fs = FileSystemCapabilities(read_text_file=True) if reads else None
    async with beecode_acp(workspace, "--endpoint", url, *AUTO_EDIT, fs=fs) as (conn, editor):
        editor.buffers[str(app)] = "x = 1\ny = 2\n"
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("x to 2")])
    if reads:
        assert result_of(scripted, 1) == "1\tx = 1\n2\ty = 2"  # the buffer's
        assert [verb for verb, _, _ in editor.file_requests] == ["read", "read"]
    else:
        assert result_of(scripted, 1) == "1\tx = 1"  # the disk's
        assert editor.file_requests == []
    assert result_of(scripted, 2).startswith("wrote app.py")
    assert app.read_text() == "x = 2\n"  # written to the disk, not through the editor
    assert editor.buffers[str(app)] == "x = 1\ny = 2\n"


async def test_an_editors_error_is_a_tool_error_and_the_turn_goes_on(
    workspace: Path, app: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [
        call("read", {"path": "app.py"}, "r1"),
        call("write", {"path": "new.txt", "content": "fresh\n"}, "w1"),
        text("The editor refused."),
        text("Still here."),
    ]
    async with beecode_acp(workspace, "--endpoint", url, *AUTO_EDIT, fs=BOTH) as (conn, editor):
        editor.failing = {str(app), str(workspace / "new.txt")}
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        done = await conn.prompt(session_id=sid, prompt=[text_block("read app.py")])
        assert done.stop_reason == "end_turn"
        assert "The editor refused." in editor.text()
        again = await conn.prompt(session_id=sid, prompt=[text_block("go on")])
        assert again.stop_reason == "end_turn"
    read, wrote = result_of(scripted, 1), result_of(scripted, 2)
    assert read.startswith("the editor could not read app.py: Internal error")
    assert "the buffer is locked" in read
    assert wrote.startswith("the editor could not write new.txt: Internal error")
    assert not (workspace / "new.txt").exists()


class Silent:
    """An editor that never answers a file request."""

    async def read_text_file(self, **_: Any) -> None:
        await asyncio.Event().wait()


async def test_an_editor_that_does_not_answer_is_an_error_not_a_hang(
    workspace: Path, app: Path
) -> None:
    loop = asyncio.get_running_loop()
    files = EditorFiles(cast(Client, Silent()), loop, reads=True, writes=True, timeout_s=0.2)
    with pytest.raises(EditorError, match=r"^no answer in 0.2 s$"):
        await asyncio.to_thread(files.read_text, app)
    result = await ReadTool().run({"path": "app.py"}, ToolContext(workspace, text_files=files))
    assert result.is_error
    assert result.output == "the editor could not read app.py: no answer in 0.2 s"

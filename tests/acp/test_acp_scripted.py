"""`beecode acp` as an editor drives it: a real subprocess over stdio, spoken to by the ACP
SDK's own client connection, on a scripted model server (deterministic replies)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import ImageContentBlock, McpServerStdio

from tests.acp.editor import Editor, beecode_acp
from tests.acp.model_server import Model, call, held, model_server, text
from tests.tools.test_mcp import TIME

pytestmark = pytest.mark.usefixtures("beecode_dirs")


@pytest.fixture
def model() -> Iterator[tuple[Model, str]]:
    scripted = Model()
    with model_server(scripted) as url:
        yield scripted, url


async def until(ready: Callable[[], bool]) -> None:
    while not ready():
        await asyncio.sleep(0.02)


def statuses(editor: Editor, call_id: str) -> list[str | None]:
    kinds = ("tool_call", "tool_call_update")
    return [
        u.status for u in editor.updates if u.session_update in kinds and u.tool_call_id == call_id
    ]


async def test_initialize_and_new_session(workspace: Path, model: tuple[Model, str]) -> None:
    _, url = model
    async with beecode_acp(workspace, "--endpoint", url) as (conn, editor):
        assert editor.init is not None
        caps = editor.init.agent_capabilities
        assert caps is not None and caps.load_session
        assert caps.prompt_capabilities is not None
        assert caps.prompt_capabilities.embedded_context and caps.prompt_capabilities.image
        assert editor.init.agent_info is not None and editor.init.agent_info.name == "beecode"
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert session.modes is not None and session.modes.current_mode_id == "ask"
        assert [m.id for m in session.modes.available_modes] == ["ask", "auto-edit", "yolo", "plan"]
        with pytest.raises(RequestError) as refused:
            await conn.new_session(cwd="relative/dir", mcp_servers=[])
        assert "not an absolute folder" in str(refused.value.data)


async def test_a_prompt_asks_permission_and_the_editor_answers(
    workspace: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [
        call("write", {"path": "a.txt", "content": "hello\n"}, "w1"),
        text("Wrote a.txt."),
        call("bash", {"command": "touch b.txt"}, "b1"),
        text("Not run, as you said."),
        call("bash", {"command": "touch b.txt"}, "b2"),  # the same call: a rule refuses it now
        text("Still not run."),
        call("bash", {"command": "touch e.txt"}, "e1"),
        text("The editor did not answer."),
    ]
    async with beecode_acp(workspace, "--endpoint", url) as (conn, editor):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id

        editor.answers = ["allow_once"]
        done = await conn.prompt(session_id=sid, prompt=[text_block("make a.txt")])
        assert done.stop_reason == "end_turn"
        assert (workspace / "a.txt").read_text() == "hello\n"
        assert [a.tool_call_id for a in editor.asked] == ["w1"]
        assert editor.asked[0].kind == "edit" and "+hello" in str(editor.asked[0].content)
        assert statuses(editor, "w1") == ["pending", "in_progress", "completed"]
        finished = editor.of("tool_call_update")[-1]
        diffs = [c for c in finished.content if c.type == "diff"]
        assert diffs and diffs[0].new_text == "hello\n" and diffs[0].old_text is None
        assert diffs[0].path == str(workspace / "a.txt")
        assert "Wrote a.txt." in editor.text()
        assert "created a.txt" in editor.text()  # beecode's account, after the answer
        assert done.field_meta is not None
        assert done.field_meta["beecode"]["changes"]["created"] == ["a.txt"]
        assert done.field_meta["beecode"]["figures"]["output_tokens"] >= 0

        editor.answers = ["reject_always"]
        done = await conn.prompt(session_id=sid, prompt=[text_block("make b.txt")])
        assert done.stop_reason == "end_turn"
        assert not (workspace / "b.txt").exists()
        assert statuses(editor, "b1")[-1] == "failed"
        assert "denied" in str(scripted.requests[3]["messages"][-1]["content"])

        done = await conn.prompt(session_id=sid, prompt=[text_block("try b.txt again")])
        assert len(editor.asked) == 2  # the deny rule answered, not the editor
        assert not (workspace / "b.txt").exists()
        assert "denied by rule bash(touch b.txt)" in str(scripted.requests[5]["messages"][-1])

        editor.answers = ["fail"]
        done = await conn.prompt(session_id=sid, prompt=[text_block("make e.txt")])
        assert done.stop_reason == "end_turn" and not (workspace / "e.txt").exists()
        assert "the editor could not be asked" in str(scripted.requests[7]["messages"][-1])


async def test_plan_mode_runs_no_change_whatever_the_editor_answers(
    workspace: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [call("write", {"path": "c.txt", "content": "x"}, "w1"), text("Planned.")]
    async with beecode_acp(workspace, "--endpoint", url) as (conn, editor):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        editor.answers = ["allow_always"]
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("plan c")])
        assert done.stop_reason == "end_turn"
        assert not editor.asked and not (workspace / "c.txt").exists()
        assert "plan mode is read-only" in str(scripted.requests[1]["messages"][-1]["content"])
        with pytest.raises(RequestError) as refused:
            await conn.set_session_mode(session_id=session.session_id, mode_id="root")
        assert "unknown mode" in str(refused.value.data)


async def test_cancel_while_the_editor_is_asked_runs_nothing(
    workspace: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [call("bash", {"command": "touch d.txt"}, "b1"), text("Next.")]
    async with beecode_acp(workspace, "--endpoint", url) as (conn, editor):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        editor.hold = asyncio.Event()
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("touch d")]))
        await editor.hold.wait()
        await conn.cancel(session_id=sid)
        editor.cancelled.set()
        assert (await turn).stop_reason == "cancelled"
        assert not (workspace / "d.txt").exists()
        editor.hold = None
        done = await conn.prompt(session_id=sid, prompt=[text_block("go on")])
        assert done.stop_reason == "end_turn"
        # The call has its result in the history: the next request is valid.
        sent = scripted.requests[-1]["messages"]
        assert any(m.get("tool_call_id") == "b1" for m in sent)


async def test_the_editors_mcp_servers_are_started_for_the_session(
    workspace: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [text("The time tools are there.")]
    time_server = McpServerStdio(
        name="time", command=str(TIME["command"]), args=["--local-timezone", "UTC"], env=[]
    )
    async with beecode_acp(workspace, "--endpoint", url) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[time_server])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("what time?")])
    offered = [t["function"]["name"] for t in scripted.requests[0]["tools"]]
    assert "time_get_current_time" in offered, offered


async def test_an_editors_image_goes_to_the_model_and_a_bad_one_is_told(
    workspace: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
    shot = ImageContentBlock(
        type="image",
        mime_type="image/png",
        data=base64.b64encode(png).decode(),
        uri="file:///t/s].png",
    )
    bad = ImageContentBlock(type="image", mime_type="image/png", data="not base64!")
    async with beecode_acp(workspace, "--endpoint", url) as (conn, editor):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        prompt: list[Any] = [text_block("what is this?"), shot, bad]
        await conn.prompt(session_id=session.session_id, prompt=prompt)
    content = scripted.requests[0]["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "what is this?"}
    assert content[1] == {"type": "text", "text": "[image s_.png]"}
    url_sent = content[2]["image_url"]["url"]
    assert base64.b64decode(url_sent.removeprefix("data:image/png;base64,")) == png
    assert len(content) == 3  # the bad one is not sent
    said = " ".join(
        str(u.content.text) for u in editor.updates if u.session_update == "agent_message_chunk"
    )
    assert "image-2.png" in said and "not a PNG" in said, said


async def test_an_answer_cut_at_the_token_limit_stops_as_max_tokens(
    workspace: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [text("The answer goes on and", finish="length"), text("Short.")]
    async with beecode_acp(workspace, "--endpoint", url) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        cut = await conn.prompt(session_id=session.session_id, prompt=[text_block("explain")])
        assert cut.stop_reason == "max_tokens"
        whole = await conn.prompt(session_id=session.session_id, prompt=[text_block("briefly")])
        assert whole.stop_reason == "end_turn"


async def test_cancel_mid_turn_keeps_the_conversation_and_load_replays_it(
    workspace: Path, model: tuple[Model, str]
) -> None:
    scripted, url = model
    scripted.replies = [
        call("write", {"path": "a.txt", "content": "one\n"}, "w1"),
        held("Working on it"),
        text("Back again."),
    ]
    async with beecode_acp(workspace, "--endpoint", url, "--permission-mode", "auto-edit") as (
        conn,
        editor,
    ):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("write a")]))
        await until(lambda: "Working on it" in editor.text())
        assert (workspace / "a.txt").read_text() == "one\n"
        await conn.cancel(session_id=sid)
        assert (await turn).stop_reason == "cancelled"
        done = await conn.prompt(session_id=sid, prompt=[text_block("go on")])
        assert done.stop_reason == "end_turn"
        # What was said before the cancel was kept, and sent with the next request.
        sent = scripted.requests[-1]["messages"]
        assert any(m.get("content") == "Working on it" for m in sent)
    async with beecode_acp(workspace, "--endpoint", url) as (conn, editor):
        loaded = await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
        assert loaded.modes is not None
        assert editor.text("user_message_chunk").startswith("write a")
        assert "go on" in editor.text("user_message_chunk")
        assert [u.tool_call_id for u in editor.of("tool_call")] == ["w1"]
        assert "Back again." in editor.text()
        done = await conn.prompt(session_id=sid, prompt=[text_block("and now?")])
        assert done.stop_reason == "end_turn"
        assert any(m.get("content") == "Back again." for m in scripted.requests[-1]["messages"])

"""Images in the TUI under Pilot: a dropped (pasted) image path becomes its mention, the message
shows what it was sent with, and a resumed session shows it again."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from agent.faces.contract import ConnectRequest
from agent.tui.app import BeeApp
from agent.tui.paste import dropped_images
from agent.tui.widgets.blocks import Attachment
from agent.tui.widgets.prompt import PromptInput
from tests.agent.test_images import PNG, PNG_URL, image_parts
from tests.factory import ScriptedRuntime, answer
from tests.tui.harness import running, shown, until


def chips(app: BeeApp) -> list[str]:
    return [str(w.content) for w in app.main.conversation.query(Attachment)]


async def paste(app: BeeApp, text: str) -> None:
    area = app.main.query_one(PromptInput)
    area.focus()
    area.post_message(events.Paste(text))


@pytest.mark.parametrize(
    "dropped", ["'{ws}/my shot.png'", "{ws}/my\\ shot.png", "file://{ws}/my%20shot.png"]
)
def test_a_dropped_file_becomes_its_mention(workspace: Path, dropped: str) -> None:
    (workspace / "my shot.png").write_bytes(PNG)
    found = dropped_images(dropped.format(ws=workspace), workspace)
    assert found is not None and found.mentions == ['@"my shot.png"'] and not found.outside


def test_other_pastes_are_not_touched(workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    assert dropped_images("shot.png is the logo", workspace) is None
    assert dropped_images("missing.png", workspace) is None
    assert dropped_images("'unclosed", workspace) is None


async def test_a_pasted_image_path_is_attached_and_shown(workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    runtime = ScriptedRuntime(workspace, [answer("A red pixel."), answer("ok")])
    runtime.vision = True
    async with running(runtime) as (app, pilot):
        await pilot.press(*"what is this ")
        await paste(app, f"'{workspace}/shot.png'")
        await until(pilot, lambda: app.main.query_one(PromptInput).text.endswith(".png "))
        assert app.main.query_one(PromptInput).text == "what is this @shot.png "
        await pilot.press("enter")
        await until(pilot, lambda: app.main.turns_finished == 1 and not app.main.busy)
        assert chips(app) == ["▣ attached shot.png (0 KB)"]
        assert image_parts(runtime.model.requests[0].messages[-1]["content"]) == [PNG_URL]
        assert runtime.agent is not None
        session_id = runtime.agent.session.id
    again = ScriptedRuntime(workspace, [answer("ok")])
    again.vision = True
    async with running(again, ConnectRequest(resume=session_id)) as (app, pilot):
        await until(pilot, lambda: "what is this @shot.png" in shown(app))
        assert chips(app) == ["▣ attached shot.png"]


async def test_an_image_outside_the_workspace_is_told_not_attached(
    workspace: Path, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere.png").write_bytes(PNG)
    async with running(ScriptedRuntime(workspace, [])) as (app, pilot):
        await paste(app, str(tmp_path / "elsewhere.png"))
        await until(pilot, lambda: bool(app._notifications))
        notes = [n.message for n in app._notifications]
        assert notes == [f"not attached, outside the workspace: {tmp_path / 'elsewhere.png'}"]
        assert app.main.query_one(PromptInput).text == ""


async def test_a_model_without_vision_shows_the_image_left_out(workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    async with running(ScriptedRuntime(workspace, [answer("ok")])) as (app, pilot):
        await paste(app, "shot.png")
        await until(pilot, lambda: app.main.query_one(PromptInput).text == "@shot.png ")
        await pilot.press("enter")
        await until(pilot, lambda: app.main.turns_finished == 1 and not app.main.busy)
        assert chips(app) == ["▢ image shot.png left out: this model does not read images"]
        assert "This model does not read images" in shown(app)

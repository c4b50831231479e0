"""Images a message names with ``@path``: attached as image parts for a model that reads them,
one line for one that does not, kept beside the session and restored on resume."""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path

from agent.context.images import MAX_IMAGE_BYTES, attachments, named_images, sniff, words
from agent.events import ImageAttached, Notice
from agent.faces.headless import run_agent
from agent.model.scripted import text
from agent.sessions.store import Session, images_dir
from tests.agent.loop_kit import Face, make_agent

# A real 1x1 PNG (a red pixel), as an image editor writes it.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


def image_parts(content: object) -> list[str]:
    assert isinstance(content, list)
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]


def test_the_bytes_say_what_an_image_is() -> None:
    assert sniff(PNG[:16]) == "image/png"
    assert sniff(b"\xff\xd8\xff\xe0\x00\x10JFIF") == "image/jpeg"
    assert sniff(b"GIF89a\x01\x00") == "image/gif"
    assert sniff(b"RIFF\x24\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff(b"not an image at all") is None


def test_only_at_mentions_of_image_names_count() -> None:
    said = 'see @shot.png, @"my shot.JPG" and logo.png (no @) and @notes.txt; @shot.png again'
    assert named_images(said) == ["shot.png", "my shot.JPG"]
    assert named_images("mail me at someone@host.png") == []  # not a mention: no space before


async def test_an_image_reaches_a_vision_model_and_the_session_keeps_it_beside_it(
    ws: Path,
) -> None:
    (ws / "shot.png").write_bytes(PNG)
    agent, model = make_agent(ws, [text("A red pixel.")])
    agent.vision = True
    face = Face()
    await agent.run_turn("what is in @shot.png?", face)
    sent = model.requests[0].messages[-1]["content"]
    assert sent[0] == {"type": "text", "text": "what is in @shot.png?"}
    assert sent[1] == {"type": "text", "text": "[image shot.png]"}
    assert image_parts(sent) == [PNG_URL]
    assert face.of(ImageAttached) == [ImageAttached("shot.png", len(PNG), True, "")]
    assert face.of(ImageAttached)[0].line() == "attached shot.png (0 KB)"
    # The session file names the image; its bytes are one file beside the sessions.
    raw = agent.session.path.read_text()
    assert base64.b64encode(PNG).decode() not in raw
    stored = list(images_dir().iterdir())
    assert [p.read_bytes() for p in stored] == [PNG]
    assert f"beecode-image:{stored[0].name}" in raw
    # A resume sends the image again, and the TUI reads its attachments back.
    resumed = Session.open(agent.session.id).messages()
    assert image_parts(resumed[0]["content"]) == [PNG_URL]
    assert attachments(resumed[0]["content"]) == [("shot.png", True)]
    assert words(resumed[0]["content"]) == "what is in @shot.png?"


async def test_a_model_without_vision_gets_one_line_and_the_user_is_told_once(ws: Path) -> None:
    (ws / "shot.png").write_bytes(PNG)
    agent, model = make_agent(ws, [text("ok"), text("ok")])
    assert agent.vision is False  # as a llama-server without a projector says
    face = Face()
    await agent.run_turn("describe @shot.png", face)
    await agent.run_turn("and @shot.png again", face)
    sent = model.requests[0].messages[-1]["content"]
    assert sent[1] == {
        "type": "text",
        "text": "[image shot.png left out: this model does not read images]",
    }
    assert not image_parts(sent)
    said = [n.message for n in face.of(Notice) if "images" in n.message]
    assert said == [
        "This model does not read images: each is sent as a line saying it was left out."
    ]
    left = face.of(ImageAttached)
    assert [e.shown for e in left] == [False, False]
    assert left[0].line() == "image shot.png left out: this model does not read images"
    resumed = Session.open(agent.session.id).messages()
    assert attachments(resumed[0]["content"]) == [("shot.png", False)]


async def test_an_endpoint_that_does_not_say_gets_the_image_as_is(ws: Path) -> None:
    (ws / "shot.png").write_bytes(PNG)
    agent, model = make_agent(ws, [text("ok")])
    agent.vision = None  # another OpenAI-compatible server (vLLM, SGLang): nothing says
    await agent.run_turn("@shot.png", Face())
    assert image_parts(model.requests[0].messages[-1]["content"]) == [PNG_URL]


async def test_images_that_cannot_be_attached_are_told_and_the_message_goes_on(
    ws: Path, tmp_path: Path
) -> None:
    (ws / "fake.png").write_text("just text\n")
    with (ws / "huge.png").open("wb") as big:  # sparse: no 10 MB written
        big.write(PNG)
        big.truncate(MAX_IMAGE_BYTES + 1)
    (tmp_path / "outside.png").write_bytes(PNG)
    os.symlink(tmp_path / "outside.png", ws / "link.png")
    os.mkfifo(ws / "pipe.png")
    agent, model = make_agent(ws, [text("ok")])
    agent.vision = True
    face = Face()
    said = "@fake.png @huge.png @../outside.png @link.png @gone.png @pipe.png"
    await agent.run_turn(said, face)
    sent = model.requests[0].messages[-1]["content"]
    assert isinstance(sent, str) and sent.startswith(said)  # no image part (fake.png is text)
    assert [e.line() for e in face.of(ImageAttached)] == [
        "image fake.png left out: not a PNG, JPEG, GIF or WebP image",
        "image huge.png left out: larger than 10 MB",
        "image ../outside.png left out: outside the workspace",
        "image link.png left out: outside the workspace",
        "image gone.png left out: no such file",
        "image pipe.png left out: not a file",
    ]


async def test_a_missing_image_file_leaves_a_line_and_the_history_loads(ws: Path) -> None:
    (ws / "shot.png").write_bytes(PNG)
    agent, _ = make_agent(ws, [text("ok")])
    agent.vision = True
    await agent.run_turn("@shot.png", Face())
    for path in images_dir().iterdir():
        path.unlink()
    resumed = Session.open(agent.session.id).messages()
    content = resumed[0]["content"]
    assert not image_parts(content)
    assert content[2]["text"].startswith("[an image of this message is missing: ")
    assert resumed[1]["content"] == "ok"


def test_headless_tells_each_image(ws: Path) -> None:
    (ws / "shot.png").write_bytes(PNG)
    agent, _ = make_agent(ws, [text("A pixel.")])
    agent.vision = True
    out, err = io.StringIO(), io.StringIO()
    assert run_agent(agent, "@shot.png @nope.gif", "json", out, err, agent.session.id) == 0
    result = json.loads(out.getvalue())
    assert [(i["name"], i["shown"], i["why"]) for i in result["images"]] == [
        ("nope.gif", False, "no such file"),
        ("shot.png", True, ""),
    ]
    err_lines = err.getvalue().splitlines()
    assert "beecode: attached shot.png (0 KB)" in err_lines
    assert "beecode: image nope.gif left out: no such file" in err_lines

"""Images the user's message names with ``@path``, attached to it as image parts.

``@shot.png`` (or ``@"my shot.png"``) names a PNG, JPEG, GIF or WebP file inside the workspace,
confined as other mentions are. Its bytes must say what it is (the name alone does not), and it
must be at most ``MAX_IMAGE_BYTES``. Each becomes an OpenAI ``image_url`` part (a base64
``data:`` URL) after the user's words, labelled with its name; for a model that reads no images
the part is one line of text saying it was left out. A named image that cannot be attached gets
one line saying why, and the message goes on without it.
"""

from __future__ import annotations

import base64
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.events import EventSink, ImageAttached, Notice
from tools.nofollow import open_file
from tools.tool import ToolError

MAX_IMAGE_BYTES = 10 * 1024 * 1024
MAX_IMAGES = 8
SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
_MENTION = re.compile(r"""(?:^|(?<=\s))@(?:"([^"]+)"|(\S+))""")
_TRAILING = "'\"`,;:!?)]}>"
# The label before each image part, and the line in its place for a model without vision:
# beecode's own markers, which the TUI reads back to show a resumed message's attachments.
LABEL = re.compile(r"\[image (.+?)( left out: [^\]]*)?\]")
NO_VISION = "this model does not read images"


@dataclass(frozen=True)
class Attached:
    name: str  # workspace-relative, as the message names it
    mime: str
    data: bytes

    @property
    def url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode()}"


def sniff(head: bytes) -> str | None:
    """The image type the file's first bytes say, or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def named_images(text: str) -> list[str]:
    """The image paths ``text`` names with ``@``, in order, each once."""
    found: dict[str, None] = {}
    for match in _MENTION.finditer(text):
        name = match.group(1) or match.group(2).rstrip(_TRAILING)
        if name.lower().endswith(SUFFIXES):
            found[name] = None
    return list(found)


def find_images(text: str, workspace: Path) -> tuple[list[Attached], list[tuple[str, str]]]:
    """The images ``text`` names, read; and (name, why) for each that could not be attached."""
    root = workspace.resolve()
    images: list[Attached] = []
    problems: list[tuple[str, str]] = []
    for name in named_images(text):
        if len(images) == MAX_IMAGES:
            problems.append((name, f"at most {MAX_IMAGES} images a message"))
            continue
        image = _read(root, name)
        if isinstance(image, str):
            problems.append((name, image))
        else:
            images.append(image)
    return images, problems


def _read(root: Path, name: str) -> Attached | str:
    """The image, or why it cannot be attached."""
    try:
        path = (root / Path(name).expanduser()).resolve()
    except (OSError, ValueError, RuntimeError):
        return "not a usable path"
    if not path.is_relative_to(root):
        return "outside the workspace"
    try:
        fd = open_file(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO does not hang the turn
    except FileNotFoundError:
        return "no such file"
    except (ToolError, OSError) as err:
        return f"cannot read it ({getattr(err, 'strerror', None) or err})"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a file"
        data = b""
        while len(data) <= MAX_IMAGE_BYTES and (more := os.read(fd, MAX_IMAGE_BYTES + 1)):
            data += more
    except OSError as err:
        return f"cannot read it ({err.strerror})"
    finally:
        os.close(fd)
    return checked(path.relative_to(root).as_posix(), data)


def checked(name: str, data: bytes) -> Attached | str:
    """``data`` as the image ``name``, or why it cannot be attached (its bytes say its type)."""
    if len(data) > MAX_IMAGE_BYTES:
        return f"larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB"
    mime = sniff(data[:16])
    if mime is None:
        return "not a PNG, JPEG, GIF or WebP image"
    return Attached(name, mime, data)


def user_content(text: str, images: list[Attached], vision: bool | None) -> str | list[Any]:
    """The user message's content: ``text`` alone, or text and image parts. ``vision``: the
    model reads images (None: not known, as for another OpenAI-compatible server: sent as is)."""
    if not images:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for image in images:
        if vision is False:
            parts.append({"type": "text", "text": f"[image {image.name} left out: {NO_VISION}]"})
        else:
            parts.append({"type": "text", "text": f"[image {image.name}]"})
            parts.append({"type": "image_url", "image_url": {"url": image.url}})
    return parts


class ImageAttacher:
    """A session's images: each a message names is read, told to the user, and sent; that the
    model reads none is told once a session."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.told_blind = False

    def content(
        self,
        user_text: str,
        text: str,
        vision: bool | None,
        emit: EventSink,
        given: Sequence[tuple[str, bytes]] = (),
    ) -> str | list[Any]:
        """The content of the message ``text`` (``user_text`` with what beecode added) with the
        images ``user_text`` names, then those ``given`` as (name, bytes) (an editor's)."""
        images, problems = find_images(user_text, self.workspace)
        for name, data in given:
            image = checked(name, data)
            if isinstance(image, str):
                problems.append((name, image))
            elif len(images) == MAX_IMAGES:
                problems.append((name, f"at most {MAX_IMAGES} images a message"))
            else:
                images.append(image)
        for name, why in problems:
            emit(ImageAttached(name, 0, False, why))
        blind = vision is False
        for image in images:
            emit(ImageAttached(image.name, len(image.data), not blind, NO_VISION * blind))
        if images and blind and not self.told_blind:
            self.told_blind = True
            note = "This model does not read images: each is sent as a line saying it was left out."
            emit(Notice(note, "warning"))
        return user_content(text, images, vision)


def attachments(content: Any) -> list[tuple[str, bool]]:
    """The images a user message's content was sent with: (name, shown to the model)."""
    if not isinstance(content, list):
        return []
    found = []
    for part in content[1:]:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and (match := LABEL.fullmatch(text)):
            found.append((match.group(1), match.group(2) is None))
    return found


def words(content: Any) -> str:
    """What the user typed of a message's content (its first text part for one with images)."""
    if isinstance(content, list):
        first = content[0] if content else {}
        return str(first.get("text", "")) if isinstance(first, dict) else ""
    return content if isinstance(content, str) else ""

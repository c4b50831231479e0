"""Images in session records kept as files beside the sessions, so a session file stays small.

A message's image part (a base64 ``data:`` URL: an image the user attached, or one a tool
returned) is written once to ``sessions/images/<sha256>.<ext>`` (the same image in any session,
or a fork, is one file) and the record holds ``beecode-image:<sha256>.<ext>`` in its place.
Reading the session back puts the data URL back; a file gone missing becomes one line of text
saying so, and the rest of the history loads.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.sessions.durable import write_synced

REF = "beecode-image:"
_DATA = re.compile(r"data:(image/(png|jpeg|gif|webp));base64,(.*)", re.DOTALL)
_NAME = re.compile(r"[0-9a-f]{64}\.(png|jpeg|gif|webp)")


def stored_record(record: dict[str, Any], folder: Path) -> dict[str, Any]:
    """``record`` with its messages' images written to ``folder`` and referenced."""
    if record.get("type") == "message" and isinstance(record.get("message"), dict):
        return {**record, "message": _map_images(record["message"], _store, folder)}
    if record.get("type") == "compaction" and isinstance(record.get("messages"), list):
        messages = [_map_images(m, _store, folder) for m in record["messages"]]
        return {**record, "messages": messages}
    return record


def restored(message: dict[str, Any], folder: Path) -> dict[str, Any]:
    """``message`` with its stored images read back as data URLs."""
    changed: dict[str, Any] = _map_images(message, _restore, folder)
    return changed


Change = Callable[[dict[str, Any], Path], dict[str, Any]]


def _map_images(message: Any, change: Change, folder: Path) -> Any:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return message
    parts = [change(p, folder) if _is_image(p) else p for p in content]
    return message if parts == content else {**message, "content": parts}


def _is_image(part: Any) -> bool:
    return (
        isinstance(part, dict)
        and part.get("type") == "image_url"
        and isinstance(part.get("image_url"), dict)
        and isinstance(part["image_url"].get("url"), str)
    )


def _store(part: dict[str, Any], folder: Path) -> dict[str, Any]:
    match = _DATA.fullmatch(part["image_url"]["url"])
    if match is None:
        return part  # a URL, or already stored: kept as it is
    try:
        data = base64.b64decode(match.group(3), validate=True)
    except (binascii.Error, ValueError):
        return part
    name = f"{hashlib.sha256(data).hexdigest()}.{match.group(2)}"
    path = folder / name
    if not path.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = folder / f".{name}.{secrets.token_hex(4)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            write_synced(fd, data)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    return {**part, "image_url": {**part["image_url"], "url": REF + name}}


def _restore(part: dict[str, Any], folder: Path) -> dict[str, Any]:
    url = part["image_url"]["url"]
    if not url.startswith(REF):
        return part
    name = url[len(REF) :]
    try:
        if _NAME.fullmatch(name) is None:
            raise OSError
        data = (folder / name).read_bytes()
    except OSError:
        return {"type": "text", "text": f"[an image of this message is missing: {name}]"}
    mime = "image/" + name.rsplit(".", 1)[1]
    url = f"data:{mime};base64,{base64.b64encode(data).decode()}"
    return {**part, "image_url": {**part["image_url"], "url": url}}

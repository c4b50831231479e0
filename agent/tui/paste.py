"""A paste that is only image files' paths (a terminal pastes them when a file is dropped on it)
becomes the ``@path`` mentions that attach them (``agent.context.images``)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from agent.context.images import SUFFIXES


@dataclass
class Dropped:
    mentions: list[str] = field(default_factory=list)  # "@path" for each image in the workspace
    outside: list[str] = field(default_factory=list)  # images outside it: not attached


def dropped_images(text: str, workspace: Path) -> Dropped | None:
    """The mentions for a paste of image paths (quoted, escaped or ``file://`` URIs, as terminals
    paste them); None for any other paste, which goes in as it is."""
    try:
        words = shlex.split(text.strip())
    except ValueError:  # an unclosed quote: not a path list
        return None
    if not words:
        return None
    root = workspace.resolve()
    dropped = Dropped()
    for word in words:
        if word.startswith("file://"):
            word = unquote(urlparse(word).path)
        path = Path(word).expanduser()
        if not word.lower().endswith(SUFFIXES):
            return None
        try:
            path = (root / path).resolve()
            if not path.is_file():
                return None
        except (OSError, ValueError, RuntimeError):
            return None
        if path.is_relative_to(root):
            name = path.relative_to(root).as_posix()
            dropped.mentions.append(f'@"{name}"' if any(c.isspace() for c in name) else f"@{name}")
        else:
            dropped.outside.append(str(path))
    return dropped

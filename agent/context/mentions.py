"""Files named in the user's message, attached to it, so the model starts from their content.

A user who writes "change the port in config.ini" expects the agent to look at config.ini first;
a small model often does not, and guesses. Existing files the message names (workspace-relative,
small, text) are appended to it, numbered as the read tool shows them, and count as read. The
user's own words stay first, before ``MARK``, so faces can show them without the attachments.
"""

from __future__ import annotations

from pathlib import Path

from tools.files import numbered, small_text
from tools.textfiles import TextFiles, shown_text

MARK = "\n\n---\nFiles named above:\n"
MAX_FILES = 3
MAX_BYTES = 8_000  # bigger files are left for the model to read in ranges
_EDGES = "'\"`,.;:!?()[]{}<>@"


def attach_mentions(
    text: str, workspace: Path, editor: TextFiles | None = None
) -> tuple[str, list[Path]]:
    """The message with the files it names attached, and those files' paths. ``editor``: the
    one the file tools read through, whose buffer is the text attached (it may block: called in
    a worker thread)."""
    root = workspace.resolve()
    found: dict[Path, str] = {}
    for word in text.split():
        name = word.strip(_EDGES)
        if not name or len(found) == MAX_FILES:
            continue
        try:
            path = (root / name).resolve()
        except (OSError, ValueError):
            continue
        if path not in found and path.is_relative_to(root):
            content = small_text(path, MAX_BYTES)
            if content is not None and editor is not None:
                content = shown_text(editor, path, content)
                if len(content.encode("utf-8", "surrogateescape")) > MAX_BYTES:
                    content = None  # a buffer too big to attach
            if content is not None:
                found[path] = content
    if not found:
        return text, []
    shown = []
    for path, content in found.items():
        lines = content.splitlines()
        body = numbered(lines, 1, len(str(len(lines)))) if lines else "(empty file)"
        shown.append(f"{path.relative_to(root).as_posix()}:\n{body}")
    return text + MARK + "\n\n".join(shown), list(found)


def typed_part(content: str) -> str:
    """What the user typed, without the attached files."""
    return content.split(MARK, 1)[0]

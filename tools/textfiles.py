"""Where the file tools' text comes from and goes to: the disk, or an editor that holds the
files open (ACP's ``fs/read_text_file`` and ``fs/write_text_file``), whose unsaved buffer is the
text the user sees.

``ToolContext.text_files`` is None for the disk. An editor's ``TextFiles`` says which of the two
it carries (``reads``, ``writes``); the other goes to the disk as before. Paths are checked as
for the disk (``tools.paths.resolve_in_workspace``) before any reaches the editor, absolute.
The tools call it in a worker thread: an implementation may block (on another event loop).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Protocol

from tools.nofollow import open_file
from tools.textcodec import decode_file
from tools.tool import ToolContext, ToolError


class TextFiles(Protocol):
    reads: bool  # read_text is the editor's (else the tools read the disk)
    writes: bool  # write_text is the editor's (else the tools write the disk)

    def read_text(self, path: Path) -> str:
        """The text of the file at the absolute ``path`` as the editor holds it."""
        ...

    def write_text(self, path: Path, text: str) -> None:
        """``text`` as the whole file at the absolute ``path``."""
        ...


def reader(ctx: ToolContext) -> TextFiles | None:
    """The editor that reads files for the tools, or None: the disk."""
    files = ctx.text_files
    return files if files is not None and files.reads else None


def writer(ctx: ToolContext) -> TextFiles | None:
    """The editor that writes files for the tools, or None: the disk."""
    files = ctx.text_files
    return files if files is not None and files.writes else None


def shown_text(files: TextFiles | None, full: Path, disk: str) -> str:
    """For showing (a preview, an attachment): the editor's text of ``full`` where it reads
    files, else ``disk``, also where the editor cannot say (the tool says why when it runs).
    May block on the editor: called in a worker thread."""
    if files is None:
        return disk
    try:
        return files.read_text(full)
    except Exception:
        return disk


async def editor_text(files: TextFiles, full: Path, shown: str) -> str:
    """The editor's text of ``full``; its failure is a ToolError (data for the model)."""
    try:
        return await asyncio.to_thread(files.read_text, full)
    except ToolError:
        raise
    except Exception as error:
        raise ToolError(f"the editor could not read {shown}: {_line(error)}") from None


async def editor_wrote(files: TextFiles, full: Path, text: str, shown: str) -> bool:
    """Write ``text`` through the editor; whether the disk holds it now (False: the editor
    kept it only in its buffer, and the caller writes the disk too)."""
    try:
        await asyncio.to_thread(files.write_text, full, text)
    except ToolError:
        raise
    except Exception as error:
        raise ToolError(f"the editor could not write {shown}: {_line(error)}") from None
    return disk_holds(full, text)


def disk_holds(full: Path, text: str) -> bool:
    """Whether the file on disk has ``text`` (line endings aside: an editor may save a CRLF
    file's buffer with its own)."""
    try:
        with open(open_file(full), "rb") as file:
            on_disk, _ = decode_file(file.read())
    except (OSError, UnicodeError):
        return False
    return on_disk.replace("\r\n", "\n") == text.replace("\r\n", "\n")


def _line(error: Exception) -> str:
    words = " ".join(str(error).split())
    return words or type(error).__name__

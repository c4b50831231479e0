"""File tools: read (numbered lines, ranges), write (atomic), ls; and the helpers edit shares."""

from __future__ import annotations

import difflib
import errno
import io
import stat
from pathlib import Path
from typing import Any, TextIO

from tools.formats import newly_broken
from tools.lines import bounded_lines, count_lines, text_lines
from tools.nofollow import open_file
from tools.output import cut_line
from tools.paths import resolve_in_workspace, shown_path
from tools.textcodec import UTF8, FileCodec, atomic_write_bytes, decode_file, marked_codec
from tools.textcodec import shown as shown_text
from tools.textfiles import editor_text, editor_wrote, reader, writer
from tools.tool import INT, STR, BaseTool, Kind, ToolContext, ToolError, ToolResult, params

_SNIFF_BYTES = 8192
MAX_LINE_CHARS = 2000
MAX_LS_ENTRIES = 500
# edit and write hold a file whole in memory; bigger ones are refused, not loaded.
MAX_TEXT_BYTES = 64 << 20
# What a line number and its tab may add to a line, when budgeting output.
NUMBER_ROOM = 8


def is_binary(path: Path) -> bool:
    with open(open_file(path), "rb") as file:
        return b"\0" in file.read(_SNIFF_BYTES)


def small_text(path: Path, max_bytes: int) -> str | None:
    """A text file's content when it is at most ``max_bytes``; None when it is missing, bigger,
    binary or unreadable (for showing a file whole: in a refusal, an attachment, a preview)."""
    try:
        if not path.is_file() or path.stat().st_size > max_bytes:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:_SNIFF_BYTES]:
        return None
    return data.decode("utf-8", errors="replace")


UNWRITABLE = "unwritable"  # a write's result meta: its folder cannot be written (errno, not text)
BEFORE = "before"  # an edit's result meta: the text it changed, where an editor held it

# The checks that read a file the model named (claims, task values, syntax lines) read at most this.
CHECK_BYTES = 64_000


def workspace_text(workspace: Path, name: str, max_bytes: int = CHECK_BYTES) -> str | None:
    """``small_text`` of ``name`` under ``workspace``, or None when it resolves outside it (a
    symlink or ``..`` out of a hostile repository is never read into a note for the model)."""
    root = workspace.resolve()
    path = (root / name).resolve()
    return small_text(path, max_bytes) if path.is_relative_to(root) else None


def existing_file(path: str, ctx: ToolContext) -> Path:
    """A regular file in the roots; a FIFO, socket or device is refused before it is opened
    (opening a FIFO would block until a writer came)."""
    full = resolve_in_workspace(path, ctx)
    if full.is_dir():
        raise ToolError(f"{path} is a directory; use ls")
    if not full.exists():
        raise ToolError(f"no such file: {path}")
    refuse_special(full, path)
    return full


def refuse_special(full: Path, shown: str) -> None:
    mode = full.stat().st_mode
    if not stat.S_ISREG(mode):
        kind = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device"}
        what = kind.get(stat.S_IFMT(mode), "a special file")
        raise ToolError(f"{shown} is {what}, not a regular file; not opened")


def read_text(full: Path, shown: str) -> tuple[str, FileCodec]:
    """The file's text with its line endings kept, and the codec that writes it back byte for
    byte; binary files are refused."""
    size = full.stat().st_size
    if size > MAX_TEXT_BYTES:
        raise ToolError(f"{shown} is {size} bytes, too big to edit or rewrite here; use bash")
    with open(open_file(full), "rb") as file:
        data = file.read()
    if marked_codec(data[:4]) is None and b"\0" in data[:_SNIFF_BYTES]:
        raise ToolError(f"{shown} is a binary file ({len(data)} bytes); not shown")
    return decode_file(data)


def atomic_write(full: Path, text: str, codec: FileCodec, shown: str) -> None:
    """Write ``text`` in ``codec`` atomically; nothing is written when it cannot be encoded. A
    failure names the file asked for (never the temporary file beside it) and, by its errno, a
    folder that cannot be written: that is no mistake of the call, so nothing says to retry."""
    data = codec.encode(text, shown)
    try:
        atomic_write_bytes(full, data)
    except OSError as error:
        folder = str(Path(shown).parent) if Path(shown).parent != Path(".") else "the workspace"
        if error.errno == errno.EROFS:
            why = f"{folder} is on a read-only file system: no file can be created or changed there"
        elif error.errno in (errno.EACCES, errno.EPERM):
            why = f"permission denied: {folder} (or the file) is not writable"
        else:
            raise ToolError(f"cannot write {shown}: {error.strerror or error}") from None
        raise ToolError(f"cannot write {shown}: {why}", {UNWRITABLE: True}) from None


async def file_text(full: Path, shown: str, ctx: ToolContext) -> tuple[str, FileCodec]:
    """``read_text``, with the text the editor holds where it reads files (the codec stays the
    disk's: the disk is written in it when the editor does not write it)."""
    text, codec = read_text(full, shown)
    files = reader(ctx)
    return (await editor_text(files, full, shown), codec) if files is not None else (text, codec)


async def write_file(full: Path, text: str, codec: FileCodec, shown: str, ctx: ToolContext) -> None:
    """``atomic_write``, or through the editor where it writes files."""
    files = writer(ctx)
    if files is None:
        atomic_write(full, text, codec, shown)
    elif not await editor_wrote(files, full, text, shown):
        # The editor kept it in its buffer only: the disk too, for checkpoints, git and tests.
        atomic_write(full, text, codec, shown)


def syntax_note(shown: str, before: str | None, after: str) -> dict[str, str]:
    """The warning (``note``) and the error (``broken``, for the turn's facts) when a change left
    a file that no longer parses (``tools.formats.newly_broken``); {} when it parses: the model
    hears of a broken change at once, not a run later (small models rarely go back to check)."""
    error = newly_broken(shown, before, after)
    return {"note": f"\nWarning: {shown} {error}", "broken": error} if error else {}


def unified_diff(before: str, after: str, shown: str, created: bool = False) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile="/dev/null" if created else f"a/{shown}",
        tofile=f"b/{shown}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def numbered(lines: list[str], first: int, width: int) -> str:
    """cat -n style, with over-long lines cut so one minified line cannot flood the context."""
    bare = [line.rstrip("\r\n") for line in lines]
    return _numbered([(line, len(line)) for line in bare], first, width)


def _numbered(lines: list[tuple[str, int]], first: int, width: int) -> str:
    """Lines given as (their start, their full length), numbered and cut at MAX_LINE_CHARS."""
    out = []
    for number, (line, length) in enumerate(lines, first):
        out.append(f"{number:>{width}}\t{cut_line(line, MAX_LINE_CHARS, length)}")
    return "\n".join(out)


class ReadTool(BaseTool):
    name = "read"
    description = "Read a file as numbered lines; offset (1-based line) and limit pick a range."
    parameters = params({"path": STR}, {"offset": INT, "limit": INT})

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = args["path"]
        full = existing_file(path, ctx)
        size = full.stat().st_size
        with open(open_file(full), "rb") as file:
            head = file.read(_SNIFF_BYTES)
        codec = marked_codec(head)
        if codec is None and b"\0" in head:
            raise ToolError(f"{path} is a binary file ({size} bytes); not shown")
        files, text = reader(ctx), None
        if files is not None and size <= MAX_TEXT_BYTES:  # the editor's buffer, saved or not
            text = await editor_text(files, full, shown_path(full, ctx))
            size = len(text.encode("utf-8", "surrogatepass"))
        offset, limit = args.get("offset"), args.get("limit")
        if offset is None and limit is None and size > ctx.max_output_chars:
            total = count_lines(full) if text is None else text_lines(text)
            raise ToolError(self._too_big(path, total, size, ctx.max_output_chars))
        first = offset if offset is not None else 1
        if first < 1 or (limit is not None and limit < 1):
            raise ToolError("offset and limit must be at least 1")
        encoding = codec.reader if codec is not None else "utf-8"
        with (
            io.StringIO(text, newline="")
            if text is not None
            else open(open_file(full), encoding=encoding, errors="replace", newline="")
        ) as file:
            return ToolResult(self._lines(file, first, limit, ctx.max_output_chars))

    @staticmethod
    def _too_big(path: str, total: int, size: int, budget: int) -> str:
        # A range that fits: average line plus its number and tab, with a tenth to spare.
        per_line = size / max(total, 1) + NUMBER_ROOM
        per_call = max(1, int(budget * 0.9 / per_line))
        return (
            f"{path} is {size} bytes ({total} lines), too big to read whole; "
            f"read a range, e.g. offset=1, limit={per_call}"
        )

    @staticmethod
    def _lines(file: TextIO, first: int, limit: int | None, budget: int) -> str:
        wanted: list[tuple[str, int]] = []
        used, total, full_enough = 0, 0, False
        # One pass: collect the range within the output budget, and count every line; each
        # line is read in bounded pieces, so a huge one-line file costs no memory.
        for total, (line, length) in enumerate(bounded_lines(file, MAX_LINE_CHARS), 1):
            if total < first or full_enough or len(wanted) == limit:
                continue
            used += min(length + 1, MAX_LINE_CHARS) + NUMBER_ROOM
            full_enough = used > budget and bool(wanted)
            if not full_enough:
                wanted.append((line, length))
        if total == 0:
            return "(empty file)"
        if not wanted:
            raise ToolError(f"offset {first} is past the end ({total} lines)")
        last = first + len(wanted) - 1
        text = _numbered(wanted, first, len(str(last)))
        if first == 1 and last == total:
            return text
        more = f"; next: offset={last + 1}" if last < total else ""
        return f"{text}\n[lines {first}-{last} of {total}{more}]"


class WriteTool(BaseTool):
    name = "write"
    description = "Create or overwrite a file with content."
    parameters = params({"path": STR, "content": STR})

    def kind(self, args: dict[str, Any]) -> Kind:
        return "edit"

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path, content = args["path"], args["content"]
        full = resolve_in_workspace(path, ctx)
        if full.is_dir():
            raise ToolError(f"{path} is a directory")
        shown = shown_path(full, ctx)
        created = not full.exists()
        before, codec, buffer = "", UTF8, {}
        if not created:
            refuse_special(full, path)
            try:  # an existing text file keeps its encoding
                before, codec = read_text(full, shown)
            except ToolError:
                pass  # binary or huge: replaced whole, its diff shown from empty
            else:
                if (files := reader(ctx)) is not None:  # the diff from the editor's buffer
                    before = await editor_text(files, full, shown)
                    buffer = {BEFORE: before}  # the disk may hold other text: a face's diff
        if codec.legacy:  # the whole content is new: written as UTF-8, shown as it was
            before, codec = shown_text(before), UTF8
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        counted = f"{lines} line{'' if lines == 1 else 's'}"
        if not created and before == content:  # said plainly: a model rewriting it is done
            return ToolResult(f"{shown} already holds this content ({counted}); nothing changed")
        await write_file(full, content, codec, shown, ctx)
        verb = "created" if created else "wrote"
        broken = syntax_note(shown, None if created else before, content)
        return ToolResult(
            f"{verb} {shown} ({counted})" + broken.pop("note", ""),
            meta={
                "path": shown,
                "created": created,
                "diff": unified_diff(before, content, shown, created),
                **buffer,
                **broken,
            },
        )


class LsTool(BaseTool):
    name = "ls"
    description = "List a directory."
    parameters = params({}, {"path": STR})

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = args.get("path", ".")
        full = resolve_in_workspace(path, ctx)
        if not full.exists():
            raise ToolError(f"no such directory: {path}")
        if not full.is_dir():
            raise ToolError(f"{path} is a file; use read")
        names = sorted(entry.name + ("/" if entry.is_dir() else "") for entry in full.iterdir())
        if not names:
            return ToolResult("(empty directory)")
        shown = names[:MAX_LS_ENTRIES]
        if len(names) > MAX_LS_ENTRIES:
            shown.append(f"... [{len(names) - MAX_LS_ENTRIES} more entries]")
        return ToolResult("\n".join(shown))

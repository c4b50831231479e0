"""File tools: read (numbered lines, ranges), write (atomic), ls; and the helpers edit shares."""

from __future__ import annotations

import difflib
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from tools.nofollow import open_dir, open_file
from tools.output import cut_line
from tools.paths import resolve_in_workspace, shown_path
from tools.tool import INT, STR, BaseTool, Kind, ToolContext, ToolError, ToolResult, params

_SNIFF_BYTES = 8192
MAX_LINE_CHARS = 2000
MAX_LS_ENTRIES = 500
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


def existing_file(path: str, ctx: ToolContext) -> Path:
    full = resolve_in_workspace(path, ctx)
    if full.is_dir():
        raise ToolError(f"{path} is a directory; use ls")
    if not full.exists():
        raise ToolError(f"no such file: {path}")
    return full


def read_text(full: Path, shown: str) -> str:
    """The file's text with its line endings kept; binary files are refused."""
    if is_binary(full):
        raise ToolError(f"{shown} is a binary file ({full.stat().st_size} bytes); not shown")
    with open(open_file(full), encoding="utf-8", errors="replace", newline="") as file:
        return file.read()


def atomic_write(full: Path, text: str) -> None:
    """Write through a temporary file in the same directory, then rename over the target; the
    directory is opened without following symlinks, so a swapped-in link cannot move the write."""
    full.parent.mkdir(parents=True, exist_ok=True)
    directory = open_dir(full.parent)
    temp = f".{full.name}.{secrets.token_hex(4)}.tmp"
    try:
        try:
            found = os.stat(full.name, dir_fd=directory, follow_symlinks=False).st_mode
            mode: int | None = found & 0o7777 if stat.S_ISREG(found) else None
        except FileNotFoundError:
            mode = None
        # 0o666 lets the umask decide a new file's mode, as any editor would.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(temp, flags, 0o666, dir_fd=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
                file.write(text)
                file.flush()
                if mode is not None:
                    os.fchmod(file.fileno(), mode)
                os.fsync(file.fileno())
            os.replace(temp, full.name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=directory)
            except FileNotFoundError:
                pass
            raise
    finally:
        os.close(directory)


def syntax_note(shown: str, text: str) -> str:
    """A line saying a Python file no longer compiles, else "": the model hears of a broken edit
    at once, not a run later (small models rarely go back to check)."""
    if not shown.endswith((".py", ".pyw")):
        return ""
    try:
        compile(text, shown, "exec", dont_inherit=True)
    except SyntaxError as error:
        return f"\nWarning: {shown} line {error.lineno}: SyntaxError: {error.msg}"
    except ValueError:  # source with NUL bytes; nothing useful to say
        return ""
    return ""


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
    out = []
    for number, line in enumerate(lines, first):
        line = line.rstrip("\r\n")
        out.append(f"{number:>{width}}\t{cut_line(line, MAX_LINE_CHARS)}")
    return "\n".join(out)


class ReadTool(BaseTool):
    name = "read"
    description = "Read a file as numbered lines; offset (1-based line) and limit pick a range."
    parameters = params({"path": STR}, {"offset": INT, "limit": INT})

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = args["path"]
        full = existing_file(path, ctx)
        size = full.stat().st_size
        if is_binary(full):
            raise ToolError(f"{path} is a binary file ({size} bytes); not shown")
        offset, limit = args.get("offset"), args.get("limit")
        if offset is None and limit is None and size > ctx.max_output_chars:
            raise ToolError(self._too_big(path, full, size, ctx.max_output_chars))
        first = offset if offset is not None else 1
        if first < 1 or (limit is not None and limit < 1):
            raise ToolError("offset and limit must be at least 1")
        return ToolResult(self._lines(full, first, limit, ctx.max_output_chars))

    @staticmethod
    def _too_big(path: str, full: Path, size: int, budget: int) -> str:
        total = _count_lines(full)
        # A range that fits: average line plus its number and tab, with a tenth to spare.
        per_line = size / max(total, 1) + NUMBER_ROOM
        per_call = max(1, int(budget * 0.9 / per_line))
        return (
            f"{path} is {size} bytes ({total} lines), too big to read whole; "
            f"read a range, e.g. offset=1, limit={per_call}"
        )

    @staticmethod
    def _lines(full: Path, first: int, limit: int | None, budget: int) -> str:
        wanted: list[str] = []
        used, total, full_enough = 0, 0, False
        with open(open_file(full), encoding="utf-8", errors="replace", newline="") as file:
            # One pass: collect the range within the output budget, and count every line.
            for total, line in enumerate(file, 1):
                if total < first or full_enough or len(wanted) == limit:
                    continue
                used += min(len(line), MAX_LINE_CHARS) + NUMBER_ROOM
                full_enough = used > budget and bool(wanted)
                if not full_enough:
                    wanted.append(line)
        if total == 0:
            return "(empty file)"
        if not wanted:
            raise ToolError(f"offset {first} is past the end ({total} lines)")
        last = first + len(wanted) - 1
        text = numbered(wanted, first, len(str(last)))
        if first == 1 and last == total:
            return text
        more = f"; next: offset={last + 1}" if last < total else ""
        return f"{text}\n[lines {first}-{last} of {total}{more}]"


def _count_lines(full: Path) -> int:
    with open(open_file(full), "rb") as file:
        return sum(1 for _ in file)


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
        before = "" if created or is_binary(full) else read_text(full, shown)
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        counted = f"{lines} line{'' if lines == 1 else 's'}"
        if not created and before == content:  # said plainly: a model rewriting it is done
            return ToolResult(f"{shown} already holds this content ({counted}); nothing changed")
        atomic_write(full, content)
        verb = "created" if created else "wrote"
        return ToolResult(
            f"{verb} {shown} ({counted})" + syntax_note(shown, content),
            meta={"path": shown, "diff": unified_diff(before, content, shown, created)},
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

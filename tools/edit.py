"""The edit tool: replace an exact string; a near miss shows the closest text so a retry can hit.

An old that differs from the file's text only in whitespace (a small model writes a two-line
function as one line) is matched loosely when the match is unique and the result still
compiles: the change meant is plain, and a retry that copies the file's spacing rarely comes.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from tools.files import (
    BEFORE,
    existing_file,
    file_text,
    numbered,
    syntax_note,
    unified_diff,
    write_file,
)
from tools.formats import parse_error
from tools.paths import move_command, shown_path
from tools.textcodec import FileCodec
from tools.textcodec import shown as shown_text
from tools.textfiles import reader
from tools.tool import BOOL, STR, BaseTool, Kind, ToolContext, ToolError, ToolResult, params

# Below this similarity the "closest match" would only mislead.
MIN_SIMILARITY = 0.5
MIN_SWAPPED = 3  # a shorter new found in the file says nothing of a swap
MADE_ALREADY = "but new is there already"  # an edit that finds its own result


class EditTool(BaseTool):
    name = "edit"
    description = "Replace exact text old by new in a file; old must be unique, or set replace_all."
    parameters = params({"path": STR, "old": STR, "new": STR}, {"replace_all": BOOL})

    def kind(self, args: dict[str, Any]) -> Kind:
        return "edit"

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        old, new, replace_all = args["old"], args["new"], args.get("replace_all", False)
        if not old:
            raise ToolError("old is empty; to create or overwrite a file use write")
        if old == new:
            raise ToolError("old and new are the same; nothing to change")
        full = existing_file(args["path"], ctx)
        shown = shown_path(full, ctx)
        text, codec = await file_text(full, shown, ctx)
        if codec.legacy and not (old + new).isascii():
            raise ToolError(
                f"{shown} is not valid UTF-8 (a legacy encoding such as Latin-1?), so non-ASCII "
                "text cannot be matched or added safely; edit ASCII-only text, or use bash"
            )
        if old not in text and "\r\n" in text:
            # The model writes \n; a CRLF file still deserves an exact edit.
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        starts = _occurrences(text, old)
        if not starts and len(new.strip()) >= MIN_SWAPPED and new in text:
            # Small models swap old and new, or make a change that is made already.
            raise ToolError(
                f"old not found in {shown}, {MADE_ALREADY}: the change is made, or old and new "
                "are swapped (old is the text in the file now, new what replaces it)"
            )
        if starts and _inside_new(text, starts, old, new):
            # Sent twice, "def f()" -> "def f():" would make "def f()::" of its own result.
            return ToolResult(
                f"{shown} already holds this change (old is only inside new); nothing changed"
            )
        if not starts and old.strip() in (shown, full.name):
            # Asked to rename a file, a small model edits the file's own name in its text.
            raise ToolError(
                f"old not found in {shown}: edit changes a file's text. " + _moved(shown, new, ctx)
            )
        if not starts and (loose := _loosely(text, old, new, shown)):
            after, where = loose
            return await _written(full, text, after, codec, shown, where, ctx)
        if not starts:
            raise ToolError(not_found(shown_text(text), old, shown))
        lines = [text.count("\n", 0, start) + 1 for start in starts]
        if len(starts) > 1 and not replace_all:
            raise ToolError(
                f"old occurs {len(starts)} times in {shown} (lines {_listed(lines)}); "
                "add surrounding lines to make it unique, or set replace_all"
            )
        if len(lines) == 1:
            where = f"1 replacement at line {lines[0]}"
        else:
            where = f"{len(lines)} replacements at lines {_listed(lines)}"
        return await _written(full, text, text.replace(old, new), codec, shown, where, ctx)


async def _written(
    full: Path, text: str, after: str, codec: FileCodec, shown: str, where: str, ctx: ToolContext
) -> ToolResult:
    await write_file(full, after, codec, shown, ctx)
    stored = f" (kept as {codec.note})" if codec.note else ""
    broken = syntax_note(shown, text, after)
    return ToolResult(
        f"edited {shown}: {where}{stored}" + broken.pop("note", ""),
        meta={
            "path": shown,
            "diff": unified_diff(shown_text(text), shown_text(after), shown),
            **({BEFORE: text} if reader(ctx) is not None else {}),  # the editor's, not the disk's
            **broken,
        },
    )


def _loosely(text: str, old: str, new: str, shown: str) -> tuple[str, str] | None:
    """The text with old replaced where it matches but for whitespace, or None: the match must
    be the only one, and a file that compiled must still compile (in Python, whitespace is
    code: a body moved out of its block is not the change meant)."""
    words = old.split()
    if len(words) < 2:
        return None
    found = list(re.finditer(r"\s+".join(map(re.escape, words)), text))
    if len(found) != 1:
        return None
    start, end = found[0].span()
    after = text[:start] + new + text[end:]
    if parse_error(shown, after) and not parse_error(shown, text):
        return None
    first, last = text.count("\n", 0, start) + 1, text.count("\n", 0, end) + 1
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    return after, f"1 replacement at {lines} (old matched but for whitespace)"


def _moved(shown: str, new: str, ctx: ToolContext) -> str:
    """How to rename or move the file, as the bash command when ``new`` is a path."""
    target = new.strip()
    if target and not any(c.isspace() for c in target) and ("." in target or "/" in target):
        command = move_command(shown, target, ctx.workspace)
        return f"To rename or move the file itself, run in bash: {command}"
    return "To rename or move the file itself, use mv in bash"


def _inside_new(text: str, starts: list[int], old: str, new: str) -> bool:
    """Whether each occurrence of old is where new, which holds it, already stands."""
    offset = new.find(old)
    return offset >= 0 and all(
        start >= offset and text.startswith(new, start - offset) for start in starts
    )


def _occurrences(text: str, old: str) -> list[int]:
    starts, start = [], text.find(old)
    while start != -1:
        starts.append(start)
        start = text.find(old, start + len(old))
    return starts


def _listed(numbers: list[int], most: int = 10) -> str:
    shown = ", ".join(str(number) for number in numbers[:most])
    return shown + (", ..." if len(numbers) > most else "")


def not_found(text: str, old: str, shown: str) -> str:
    """Why old did not match, with the most similar run of lines in the file."""
    lines = text.splitlines()
    wanted = old.splitlines() or [old]
    size = min(len(wanted), max(len(lines), 1))
    target = "\n".join(wanted)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)  # seq2 is the side SequenceMatcher caches; the file slides past it
    best, best_at = 0.0, 0
    for at in range(max(len(lines) - size + 1, 1)):
        matcher.set_seq1("\n".join(lines[at : at + size]))
        # The quick upper bounds skip windows that cannot beat the best so far.
        if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best:
            ratio = matcher.ratio()
            if ratio > best:
                best, best_at = ratio, at
    if best < MIN_SIMILARITY:
        return f"old not found in {shown}, nor anything close; read the file, copy text exactly"
    window = lines[best_at : best_at + size]
    last = best_at + len(window)
    if _squeezed("\n".join(window)) == _squeezed(target):
        why = f"lines {best_at + 1}-{last} differ from it only in whitespace"
    else:
        why = f"closest match, lines {best_at + 1}-{last} ({best:.0%} similar)"
    return f"old not found in {shown}; {why}:\n{numbered(window, best_at + 1, len(str(last)))}"


def _squeezed(text: str) -> str:
    return "".join(text.split())

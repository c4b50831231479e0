"""glob and grep: ripgrep when it is installed, Python otherwise; same files, same output."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import IO, Any

from tools.filelist import glob_matcher, listed_files
from tools.files import is_binary, refuse_special
from tools.lines import bounded_lines
from tools.nofollow import open_file
from tools.output import cap_text, cut_line
from tools.paths import resolve_in_workspace, shown_path
from tools.tool import BOOL, STR, BaseTool, ToolContext, ToolError, ToolResult, params

MAX_RESULTS = 200
MAX_MATCH_CHARS = 300


class _SearchTool(BaseTool):
    def __init__(self, rg: str | None = "rg") -> None:
        # The ripgrep command to use when it is on PATH; None always uses the Python fallback.
        self.rg = rg

    def _ripgrep(self) -> str | None:
        return shutil.which(self.rg) if self.rg else None

    @staticmethod
    def _base(args: dict[str, Any], ctx: ToolContext) -> Path:
        path = args.get("path", ".")
        base = resolve_in_workspace(path, ctx)
        if not base.exists():
            raise ToolError(f"no such file or directory: {path}")
        if not base.is_dir():
            refuse_special(base, path)
        return base


class GlobTool(_SearchTool):
    name = "glob"
    description = "Find files by name pattern, like *.py or src/**/test_*.py."
    parameters = params({"pattern": STR}, {"path": STR})

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        base = self._base(args, ctx)
        if not base.is_dir():
            raise ToolError(f"{args.get('path')} is not a directory")
        pattern = args["pattern"]
        if pattern.startswith(f"{base}/"):  # an absolute pattern under the searched directory
            pattern = pattern[len(f"{base}/") :]
        matches = glob_matcher(pattern)
        names = await asyncio.to_thread(listed_files, base, self._ripgrep())
        found = [shown_path(base / name, ctx) for name in names if matches(name)]
        if not found:
            return ToolResult(f"no files match {args['pattern']}")
        return ToolResult(cap_text(_capped_lines(found, "files"), ctx.max_output_chars))


class GrepTool(_SearchTool):
    name = "grep"
    description = "Search file contents for a regex; prints path:line:text. glob filters files."
    parameters = params({"pattern": STR}, {"path": STR, "glob": STR, "ignore_case": BOOL})

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        base = self._base(args, ctx)
        rg = self._ripgrep()
        search = _ripgrep_search if rg is not None else _python_search
        found = await asyncio.to_thread(search, base, args, rg or "")
        if not found:
            return ToolResult(f"no matches for {args['pattern']}")
        root = base if base.is_dir() else base.parent
        lines = [
            f"{shown_path(root / name, ctx)}:{number}:{cut_line(text, MAX_MATCH_CHARS)}"
            for name, number, text in sorted(found)
        ]
        shown = _capped_lines(lines, "matches", counted=False)
        return ToolResult(cap_text(shown, ctx.max_output_chars))


Match = tuple[str, int, str]
# Collecting stops one past the cap: enough to say there is more, never the 2M-th match.
COLLECT = MAX_RESULTS + 1
# A match's line is searched and kept up to this many characters (a 1 GB minified line costs
# one buffer); the shown text is cut further, at MAX_MATCH_CHARS.
MAX_LINE_CHARS = 1 << 20


def _ripgrep_search(base: Path, args: dict[str, Any], rg: str) -> list[Match]:
    argv = [rg, "--no-heading", "--with-filename", "--line-number", "--null", "--color=never"]
    # Sorted by path, so the first matches found are the first shown, as in the fallback.
    argv += ["--hidden", "--glob=!.git", "--no-config", "--sort=path"]
    if args.get("ignore_case", False):
        argv.append("--ignore-case")
    if "glob" in args:
        argv += ["--glob", args["glob"]]
    root, target = (base, ".") if base.is_dir() else (base.parent, base.name)
    # Errors go to a file: a full stderr pipe nobody reads would stall rg.
    with (
        tempfile.TemporaryFile() as errors,
        subprocess.Popen(
            [*argv, "--regexp", args["pattern"], "--", target],
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        ) as search,
    ):
        assert search.stdout is not None
        found: list[Match] = []
        while len(found) < COLLECT and (line := _bounded_line(search.stdout)):
            name, _, rest = line.decode(errors="replace").partition("\0")
            number, _, text = rest.partition(":")
            found.append((name.removeprefix("./"), int(number), text.rstrip("\r\n")))
        search.kill()  # done collecting: the rest of the matches are never produced
        search.wait()
        errors.seek(0)
        problem = errors.read(4096)
    if not found and search.returncode == 2:
        raise ToolError("grep: " + problem.decode(errors="replace").strip())
    return found


def _bounded_line(pipe: IO[bytes]) -> bytes:
    """The next line, of which at most MAX_LINE_CHARS bytes are kept; b"" at the end."""
    line = piece = pipe.readline(MAX_LINE_CHARS)
    while piece and not piece.endswith(b"\n"):
        piece = pipe.readline(1 << 16)
    return line


def _python_search(base: Path, args: dict[str, Any], _rg: str) -> list[Match]:
    flags = re.IGNORECASE if args.get("ignore_case", False) else 0
    try:
        regex = re.compile(args["pattern"], flags)
    except re.error as error:
        raise ToolError(f"grep: invalid regex {args['pattern']!r}: {error}") from error
    if base.is_dir():
        root, names = base, listed_files(base, None)
    else:
        root, names = base.parent, [base.name]
    if "glob" in args:
        matches = glob_matcher(args["glob"])
        names = [name for name in names if matches(name)]
    found: list[Match] = []
    for name in names:  # sorted, so stopping at the cap keeps the first matches
        if not (root / name).resolve().is_relative_to(root):
            continue  # a symlink out of the searched tree: rg does not follow links either
        try:
            found += _matches_in(root / name, name, regex, COLLECT - len(found))
        except OSError:  # unreadable or vanished: skipped, as rg does
            continue
        if len(found) >= COLLECT:
            break
    return found


def _matches_in(path: Path, name: str, regex: re.Pattern[str], most: int) -> list[Match]:
    if not path.is_file() or is_binary(path):  # a FIFO would block; rg skips them too
        return []
    found = []
    with open(open_file(path), encoding="utf-8", errors="replace", newline="") as file:
        for number, (line, _) in enumerate(bounded_lines(file, MAX_LINE_CHARS), 1):
            if regex.search(line):
                found.append((name, number, line))
                if len(found) == most:
                    break
    return found


def _capped_lines(lines: list[str], what: str, counted: bool = True) -> str:
    """At most MAX_RESULTS lines; ``counted`` when ``lines`` holds all of them (glob), not just
    one past the cap (grep stops collecting there)."""
    if len(lines) <= MAX_RESULTS:
        return "\n".join(lines)
    more = f"{len(lines) - MAX_RESULTS} more" if counted else "more"
    return "\n".join(lines[:MAX_RESULTS]) + f"\n... [{more} {what}; narrow the search]"

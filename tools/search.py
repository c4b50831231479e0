"""glob and grep: ripgrep when it is installed, Python otherwise; same files, same output."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tools.filelist import glob_matcher, listed_files
from tools.files import is_binary
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
        return ToolResult(cap_text(_capped_lines(lines, "matches"), ctx.max_output_chars))


Match = tuple[str, int, str]


def _ripgrep_search(base: Path, args: dict[str, Any], rg: str) -> list[Match]:
    argv = [rg, "--no-heading", "--with-filename", "--line-number", "--null", "--color=never"]
    argv += ["--hidden", "--glob=!.git", "--no-config"]
    if args.get("ignore_case", False):
        argv.append("--ignore-case")
    if "glob" in args:
        argv += ["--glob", args["glob"]]
    root, target = (base, ".") if base.is_dir() else (base.parent, base.name)
    done = subprocess.run(
        [*argv, "--regexp", args["pattern"], "--", target],
        cwd=root,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode == 2 and not done.stdout:
        raise ToolError("grep: " + done.stderr.decode(errors="replace").strip())
    found = []
    for line in done.stdout.decode(errors="replace").splitlines():
        name, _, rest = line.partition("\0")
        number, _, text = rest.partition(":")
        found.append((name.removeprefix("./"), int(number), text))
    return found


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
    found = []
    for name in names:
        if not (root / name).resolve().is_relative_to(root):
            continue  # a symlink out of the searched tree: rg does not follow links either
        try:
            found += _matches_in(root / name, name, regex)
        except OSError:  # unreadable or vanished: skipped, as rg does
            continue
    return found


def _matches_in(path: Path, name: str, regex: re.Pattern[str]) -> list[Match]:
    if is_binary(path):
        return []
    with path.open(encoding="utf-8", errors="replace") as file:
        lines = (line.rstrip("\r\n") for line in file)
        return [(name, number, line) for number, line in enumerate(lines, 1) if regex.search(line)]


def _capped_lines(lines: list[str], what: str) -> str:
    if len(lines) <= MAX_RESULTS:
        return "\n".join(lines)
    more = len(lines) - MAX_RESULTS
    return "\n".join(lines[:MAX_RESULTS]) + f"\n... [{more} more {what}; narrow the search]"

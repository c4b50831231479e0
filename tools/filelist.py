"""Which files a search sees, and glob patterns, the same way with and without ripgrep.

Files honour .gitignore. With ``rg``: ``rg --files`` (hidden files included, .git left out).
Without it, inside a git work tree: ``git ls-files --cached --others --exclude-standard``, which
applies .gitignore, .git/info/exclude and the global excludes as rg does. Outside a git work tree
rg ignores .gitignore by default, and so does the fallback: it walks every file except .git.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from wcmatch import glob as wcglob

from tools.tool import ToolError


def listed_files(base: Path, rg: str | None) -> list[str]:
    """Paths of the files under directory ``base``, relative to it, sorted."""
    if rg is not None:
        found = _run([rg, "--files", "--hidden", "--glob=!.git", "--null", "."], base)
        names = [name.removeprefix("./") for name in found.split("\0") if name]
    elif _inside_git_work_tree(base):
        found = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], base)
        # --cached still lists deleted files, and submodules as directories.
        names = [name for name in set(found.split("\0")) if name and (base / name).is_file()]
    else:
        names = []
        for top, dirs, files in os.walk(base):
            dirs[:] = [name for name in dirs if name != ".git"]
            names += [Path(top, name).relative_to(base).as_posix() for name in files]
    return sorted(names)


def _inside_git_work_tree(path: Path) -> bool:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--is-inside-work-tree"],
            cwd=path,
            capture_output=True,
            text=True,
        )
    except FileNotFoundError:  # no git installed: treat as a plain directory
        return False
    return done.stdout.strip() == "true"


def _run(argv: list[str], cwd: Path) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL)
    # rg exits 1 when it lists nothing, and 2 when some files could not be read.
    if done.returncode not in (0, 1) and not done.stdout:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise ToolError(f"{argv[0]} failed: {message[0] if message else done.returncode}")
    return done.stdout.decode(errors="replace")


def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A test for relative paths: a pattern without a slash matches a file name at any depth;
    ``**`` spans directories; ``*``, ``?`` and ``[...]`` stay within one name (dot files too);
    ``{a,b}`` is either. (wcmatch, not pathspec: gitignore's rule that a pattern naming a directory
    matches everything below it would change what glob and grep return.)"""
    pattern = pattern.removeprefix("./").lstrip("/")
    flags = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.MATCHBASE | wcglob.DOTMATCH
    return wcglob.compile(pattern, flags=flags).match

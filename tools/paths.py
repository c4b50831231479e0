"""Where file tools may go: the workspace and the extra roots the user granted, nothing else."""

from __future__ import annotations

import os
from pathlib import Path
from shlex import quote

from tools.tool import ToolContext, ToolError


class PathOutsideWorkspace(ToolError):
    pass


def expanded(path: str | Path) -> Path:
    """``~`` expanded; a ``~user`` that does not exist stays as written (the tools refuse it)."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        return Path(path)


def resolve_in_workspace(path: str, ctx: ToolContext) -> Path:
    """The absolute path, with symlinks and ``..`` resolved; refused when it leaves the roots."""
    try:
        given = Path(path).expanduser()
        full = (given if given.is_absolute() else ctx.workspace / given).resolve()
    except (ValueError, RuntimeError) as error:  # NUL byte; a symlink loop; ~nosuchuser
        raise ToolError(f"bad path {path!r}: {error}") from error
    roots = [ctx.workspace.resolve(), *(root.resolve() for root in ctx.extra_roots)]
    if not any(full.is_relative_to(root) for root in roots):
        raise PathOutsideWorkspace(
            f"{path} resolves to {full}, outside the workspace {roots[0]}; use paths inside it"
        )
    return full


def shown_path(path: Path, ctx: ToolContext) -> str:
    """How a path is shown to the model: relative to the workspace when inside it."""
    workspace = ctx.workspace.resolve()
    return path.relative_to(workspace).as_posix() if path.is_relative_to(workspace) else str(path)


def move_command(source: str, target: str, workspace: Path) -> str:
    """The shell command that moves ``source`` to ``target`` (workspace-relative), making the
    target's folder first when it does not exist yet (mv alone would fail there)."""
    move = f"mv {quote(source)} {quote(target)}"
    folder = (workspace / target).parent
    return move if folder.is_dir() else f"mkdir -p {quote(str(Path(target).parent))} && {move}"


def unwritable(folder: Path) -> str | None:
    """One line for the user when nothing can be written in ``folder`` (a read-only file system,
    or no write permission), else None; by the kernel's answer (access, statvfs), not a guess."""
    if os.access(folder, os.W_OK):
        return None
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    why = "it is on a read-only file system" if read_only else "no write permission"
    return f"{folder} is not writable ({why}): files cannot be created or changed there"

"""A shadow git repository that snapshots a workspace's files: never the user's .git, index or
stash. Its git dir lives in beecode's data dir; the workspace is only its work tree.

A snapshot is ``git add -A`` into the shadow's own index (which keeps stat data, so only files
changed since the last snapshot are read and stored) and a commit chained on the previous one.
It holds tracked and untracked files that are not ignored (the workspace's .gitignore files and
.git/info/exclude apply); ignored files and everything under .git are never touched. The user's
git config is not read (no autocrlf, filters or hooks), and attributes are off, so a restore
gives back exactly the bytes that were snapshotted.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REF = "refs/beecode/snapshots"
MAX_FILE_BYTES = 50 << 20  # new files bigger than this are not snapshotted (said in the docs)
_IDENTITY = {"GIT_AUTHOR_NAME": "beecode", "GIT_AUTHOR_EMAIL": "beecode@localhost"}
_CONFIG = {
    "core.autocrlf": "false",
    "core.symlinks": "true",
    "gc.auto": "0",
    "core.quotePath": "false",
}


class CheckpointError(Exception):
    """The shadow repository could not be written or read (disk full, read-only data dir)."""


def shadow_dir(data: Path, workspace: Path) -> Path:
    """One shadow repository per workspace, named by a hash of its resolved path."""
    key = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:16]
    return data / "checkpoints" / key


class ShadowRepo:
    def __init__(self, workspace: Path, directory: Path) -> None:
        self.workspace = workspace.resolve()
        self.directory = directory
        self.git_dir = directory / "git"

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        return {
            **env,
            **_IDENTITY,
            "GIT_COMMITTER_NAME": "beecode",
            "GIT_COMMITTER_EMAIL": "beecode@localhost",
            "GIT_DIR": str(self.git_dir),
            "GIT_WORK_TREE": str(self.workspace),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_LITERAL_PATHSPECS": "1",
            "GIT_TERMINAL_PROMPT": "0",
        }

    def git(self, *args: str, stdin: bytes | None = None, unreadable_ok: bool = False) -> bytes:
        """Run git on the shadow repository; ``unreadable_ok``: files git could not open (a
        root-owned file, a socket) are left out rather than failing the snapshot."""
        try:
            done = subprocess.run(
                ["git", *args],
                cwd=self.workspace,
                env=self._env(),
                input=stdin,
                capture_output=True,
                check=False,
            )
        except OSError as error:
            raise CheckpointError(f"cannot run git: {error}") from None
        message = done.stderr.decode(errors="replace").strip().splitlines()
        errors = [line for line in message if line.startswith(("error:", "fatal:"))]
        if unreadable_ok and all(_unreadable(line) for line in errors):
            return done.stdout
        if done.returncode != 0:
            reason = message[-1] if message else f"exit code {done.returncode}"
            raise CheckpointError(f"git {args[0]} failed in the checkpoint store: {reason}")
        return done.stdout

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One beecode at a time in this shadow repository; a stale index.lock (left by a kill
        mid-snapshot) is removed, since no other writer can hold it while we hold ours."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            lock = os.open(self.directory / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise CheckpointError(f"cannot write the checkpoint store: {error}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            (self.git_dir / "index.lock").unlink(missing_ok=True)
            yield
        finally:
            os.close(lock)

    def _init(self) -> None:
        if (self.git_dir / "HEAD").exists():
            return
        self.git("init", "--quiet")
        for key, value in _CONFIG.items():
            self.git("config", key, value)
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        # Attributes off: no eol conversion, filters or encodings between snapshot and restore.
        (info / "attributes").write_text("* -text -eol -filter -ident -working-tree-encoding\n")

    def _sync_excludes(self) -> None:
        """The workspace repository's .git/info/exclude applies here too (.gitignore files in
        the work tree apply by themselves), and new files over MAX_FILE_BYTES are left out: a
        checkpoint must not copy a data set or a model into the data dir."""
        user = self.workspace / ".git" / "info" / "exclude"
        mine = self.git_dir / "info" / "exclude"
        wanted = user.read_bytes() if user.is_file() else b""
        mine.write_bytes(wanted)
        listed = self.git("ls-files", "-z", "--others", "--exclude-standard")
        big = [name for name in listed.split(b"\0") if name and _bigger(self.workspace, name)]
        if big:
            mine.write_bytes(wanted + b"\n" + b"".join(b"/" + _literal(n) + b"\n" for n in big))

    def snapshot(self, message: str) -> str:
        """Commit the workspace's current files; returns the commit id."""
        with self.locked():
            try:
                self._init()
                self._sync_excludes()
            except OSError as error:
                raise CheckpointError(f"cannot write the checkpoint store: {error}") from None
            self.git("add", "--all", "--ignore-errors", "--", ".", unreadable_ok=True)
            tree = self.git("write-tree").decode().strip()
            parent = self.head()
            args = ["commit-tree", "--no-gpg-sign", tree, "-m", message]
            commit = self.git(*args, *(["-p", parent] if parent else [])).decode().strip()
            self.git("update-ref", REF, commit)
            return commit

    def changes_since(self, commit: str) -> dict[str, str]:
        """The workspace's files that differ from snapshot ``commit``: path -> A, M or D."""
        with self.locked():
            self._sync_excludes()
            self.git("add", "--all", "--ignore-errors", "--", ".", unreadable_ok=True)
            out = self.git(
                "diff-index", "--cached", "-r", "-z", "--no-renames", "--name-status", commit
            )
        fields = out.decode(errors="surrogateescape").split("\0")
        return {path: status for status, path in zip(fields[0::2], fields[1::2], strict=False)}

    def head(self) -> str | None:
        try:
            return self.git("rev-parse", "--verify", "--quiet", REF).decode().strip() or None
        except CheckpointError:
            return None

    def restore(self, target: str, current: str) -> tuple[list[str], list[str]]:
        """Make the files of snapshot ``current`` (the workspace now) those of ``target``:
        (paths written back, paths deleted). Other files are not touched."""
        with self.locked():
            out = self.git(
                "diff-tree", "-r", "-z", "--no-renames", "--name-status", current, target
            )
            fields = out.decode(errors="surrogateescape").split("\0")
            written: list[str] = []
            deleted: list[str] = []
            for status, path in zip(fields[0::2], fields[1::2], strict=False):
                (deleted if status == "D" else written).append(path)
            for path in deleted:
                full = self.workspace / path
                full.unlink(missing_ok=True)
                _prune_empty(full.parent, self.workspace)
            if written:
                listed = "\0".join(written).encode(errors="surrogateescape")
                self.git(
                    "checkout",
                    target,
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                    stdin=listed,
                )
            return written, deleted


def _bigger(workspace: Path, name: bytes) -> bool:
    try:
        return (workspace / os.fsdecode(name)).lstat().st_size > MAX_FILE_BYTES
    except OSError:
        return False


def _literal(name: bytes) -> bytes:
    """A path as a gitignore pattern that matches only itself."""
    return re.sub(rb"([\\*?\[\]!# ])", rb"\\\1", name)


def _unreadable(line: str) -> bool:
    return any(
        part in line for part in ("open(", "unable to index", "Permission denied", "adding files")
    )


def _prune_empty(directory: Path, top: Path) -> None:
    """Remove directories a restore left empty, up to (not including) the workspace."""
    while directory != top and directory.is_relative_to(top):
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent

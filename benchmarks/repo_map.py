"""The repository map on a large real repository: its tokens, and its build time cold and warm.

Django's sdist comes from PyPI (pip download, the ordinary client), is unpacked to a scratch
folder and committed to a fresh git repo; the map is built there with an empty tags cache (cold),
again by a new RepoMap on the same cache (warm: a new session), and once more after one file
changed. Tokens are counted offline (tiktoken's cl100k when cached, else chars/3.5), as the
agent counts without a server. Prompt-cache reuse with the map on against off:
``prompt_cache.py --seed server --repo-map-tokens 0`` beside ``prompt_cache.py --seed server``.

    python benchmarks/repo_map.py [--package django] [--budget 1024]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from _common import header, main_guard, scratch

from agent.context.prompt import TokenCounter
from agent.context.repomap import RepoMap


def unpacked(package: str, folder: Path) -> Path:
    downloads = folder / "sdist"
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
        + ["-d", str(downloads), package],
        check=True,
    )
    archive = next(downloads.glob("*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "src", filter="data")
    root = next((folder / "src").iterdir())
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "sdist"]):
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=root, check=True
        )
    return root


def build(root: Path, cache: Path, budget: int, count: TokenCounter) -> tuple[str, float, int]:
    repo_map = RepoMap(root, budget, count.count_text, cache_folder=cache, build_s=600)
    started = time.monotonic()
    text = repo_map.current()
    assert repo_map.last is not None
    return text, time.monotonic() - started, repo_map.last.files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="django")
    parser.add_argument("--budget", type=int, default=1024)
    args = parser.parse_args()
    header("repo_map")
    counter = TokenCounter(None)
    with scratch("repomap") as folder:
        root = unpacked(args.package, folder)
        cache = folder / "cache"
        text, cold, files = build(root, cache, args.budget, counter)
        again, warm, _ = build(root, cache, args.budget, counter)
        assert again == text, "the warm map differs from the cold one"
        touched = next(root.rglob("*.py"))
        touched.write_text(touched.read_text() + "\n\ndef added_by_the_benchmark():\n    pass\n")
        _, one_changed, _ = build(root, cache, args.budget, counter)
        print(f"{args.package}: {files} source files; map {counter.count_text(text)} tokens")
        print(f"build: cold {cold:.2f} s, warm {warm:.2f} s, one file changed {one_changed:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))

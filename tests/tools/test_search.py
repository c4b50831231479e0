"""glob and grep on a real git repo, with ripgrep and with the Python fallback."""

from __future__ import annotations

import os
import shutil
import tracemalloc
from pathlib import Path

import git
import pytest

from tools.filelist import glob_matcher
from tools.search import GlobTool, GrepTool
from tools.tool import ToolContext

HAVE_RG = shutil.which("rg") is not None
ENGINES = [
    pytest.param(None, id="python"),
    pytest.param("rg", id="rg", marks=pytest.mark.skipif(not HAVE_RG, reason="rg not installed")),
]


@pytest.fixture
def project(workspace: Path, repo: git.Repo) -> Path:
    files = {
        ".gitignore": "build/\n*.log\n",
        "src/app.py": "import os\n\ndef main():\n    return os.name  # TODO tidy\n",
        "src/util.py": "def helper():\n    return 'todo later'\n",
        "README.md": "# Demo\nTODO: docs\n",
        "build/gen.py": "# TODO generated\n",
        "debug.log": "TODO in a log\n",
        ".github/ci.yml": "on: push  # TODO\n",
        "data.bin": "TODO",
    }
    for name, text in files.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    (workspace / "data.bin").write_bytes(b"\0TODO\0")
    (workspace / "gone.py").write_text("# TODO deleted\n")
    repo.index.add([".gitignore", "src/app.py", "README.md", "gone.py"])
    repo.index.commit("start")
    (workspace / "gone.py").unlink()  # still in the index: must not be listed
    return workspace


@pytest.mark.parametrize("rg", ENGINES)
async def test_glob_honours_gitignore(ctx: ToolContext, project: Path, rg: str | None) -> None:
    glob = GlobTool(rg=rg)
    assert (await glob.run({"pattern": "*.py"}, ctx)).output == "src/app.py\nsrc/util.py"
    hidden = await glob.run({"pattern": "**/*.yml"}, ctx)
    assert hidden.output == ".github/ci.yml"
    nested = await glob.run({"pattern": "*.{py,md}", "path": "src"}, ctx)
    assert nested.output == "src/app.py\nsrc/util.py"
    absolute = await glob.run({"pattern": f"{project}/src/u*.py"}, ctx)
    assert absolute.output == "src/util.py"
    none = await glob.run({"pattern": "*.rs"}, ctx)
    assert none.output == "no files match *.rs" and not none.is_error


@pytest.mark.parametrize("rg", ENGINES)
async def test_grep_honours_gitignore_and_sorts(
    ctx: ToolContext, project: Path, rg: str | None
) -> None:
    result = await GrepTool(rg=rg).run({"pattern": "TODO"}, ctx)
    assert result.output == "\n".join(
        [
            ".github/ci.yml:1:on: push  # TODO",
            "README.md:2:TODO: docs",
            "src/app.py:4:    return os.name  # TODO tidy",
        ]
    )


@pytest.mark.parametrize("rg", ENGINES)
async def test_grep_options(ctx: ToolContext, project: Path, rg: str | None) -> None:
    grep = GrepTool(rg=rg)
    folded = await grep.run({"pattern": "todo", "ignore_case": True, "glob": "*.py"}, ctx)
    assert folded.output == (
        "src/app.py:4:    return os.name  # TODO tidy\nsrc/util.py:2:    return 'todo later'"
    )
    one_file = await grep.run({"pattern": r"def \w+", "path": "src/util.py"}, ctx)
    assert one_file.output == "src/util.py:1:def helper():"
    none = await grep.run({"pattern": "nothing-here"}, ctx)
    assert none.output == "no matches for nothing-here" and not none.is_error
    bad = await grep.run({"pattern": "("}, ctx)
    assert bad.is_error and bad.output.startswith("grep: ")


@pytest.mark.parametrize("rg", ENGINES)
async def test_outside_git_nothing_is_ignored(
    ctx: ToolContext, workspace: Path, rg: str | None
) -> None:
    (workspace / ".gitignore").write_text("*.log\n")
    (workspace / "x.log").write_text("hit\n")
    assert (await GlobTool(rg=rg).run({"pattern": "*.log"}, ctx)).output == "x.log"


async def test_missing_search_path(ctx: ToolContext) -> None:
    result = await GrepTool(rg=None).run({"pattern": "x", "path": "nope"}, ctx)
    assert result.is_error and result.output == "no such file or directory: nope"


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a/b/c.py", True),
        ("*.py", "c.pyc", False),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/sub/a.py", False),
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("**/test_?.py", "t/test_1.py", True),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "b.txt", False),
        ("*.{js,ts}", "web/app.ts", True),
        ("./docs/*.md", "docs/a.md", True),
        ("*.py", ".venv/a.py", True),
        ("src", "src/a.py", False),
        ("src/*", "src/sub/a.py", False),
    ],
)
def test_glob_patterns(pattern: str, path: str, matches: bool) -> None:
    assert glob_matcher(pattern)(path) is matches


@pytest.mark.parametrize("rg", ENGINES)
async def test_grep_stops_collecting_at_its_cap(
    ctx: ToolContext, workspace: Path, rg: str | None
) -> None:
    lines = "".join(f"match {n:07d}\n" for n in range(400_000))
    for name in ("a.txt", "b.txt"):
        (workspace / name).write_text(lines)
    (workspace / "c.txt").write_text("match " + "x" * (8 << 20) + "\n")  # one 8 MiB line
    tracemalloc.start()
    try:
        result = await GrepTool(rg=rg).run({"pattern": "match"}, ctx)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    shown = result.output.splitlines()
    assert shown[0] == "a.txt:1:match 0000000" and shown[199] == "a.txt:200:match 0000199"
    assert shown[200] == "... [more matches; narrow the search]"
    assert peak < 8 << 20, f"peak {peak} bytes"  # 800k matches collected would take ~100 MB


@pytest.mark.parametrize("rg", ENGINES)
async def test_grep_on_a_fifo_is_refused(ctx: ToolContext, workspace: Path, rg: str | None) -> None:
    os.mkfifo(workspace / "pipe")
    result = await GrepTool(rg=rg).run({"pattern": "x", "path": "pipe"}, ctx)
    assert result.is_error and result.output == "pipe is a FIFO, not a regular file; not opened"
    (workspace / "a.txt").write_text("x\n")
    walked = await GrepTool(rg=rg).run({"pattern": "x"}, ctx)  # the FIFO is skipped, not opened
    assert walked.output == "a.txt:1:x"

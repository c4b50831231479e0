"""Random-weight targets in the shipped GPU profiles' architectures (server.models.random_target):
at full size they are the profiles' models in every figure the plans read and in weight; scaled
down, the real CPU llama-server loads them (it refuses a file with a tensor too many or too few)
and generates, alone, with a random DFlash drafter, and Qwen 3.6's with its MTP layer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from gguf import GGUFWriter

from server.client import Timings
from server.engine.build import Engine, cached_engines
from server.engine.dialect import probe
from server.errors import ModelError
from server.launch.addresses import free_port
from server.launch.llama_argv import build_argv
from server.models.gguf_header import read_fields, read_metadata
from server.models.gguf_info import GgufInfo, info_from_facts, read_gguf
from server.models.random_drafter import drafter_arch, write_random_dflash_drafter
from server.models.random_target import (
    GEMMA4_31B,
    GEMMA4_TINY,
    PAD_TOKEN,
    Q4_0_BLOCK,
    QWEN35_TINY,
    QWEN36_27B,
    Shape,
    copy_tokenizer,
    write_random_target,
)
from server.process.managed import ManagedServer
from server.profiles.builtin import builtin_profiles
from server.profiles.catalog import get_profile
from server.profiles.profile import Profile

StartServer = Callable[[list[str], int], ManagedServer]
# What the plans read of a model (server.launch.fit), besides its path, name and size.
PLANNED = ("architecture", "block_count", "embedding_length", "head_count", "head_count_kv",
           "key_length", "value_length", "key_length_swa", "value_length_swa", "sliding_window",
           "swa_layers", "vocab_size")  # fmt: skip


def _header_only(shape: Shape, path: Path) -> GgufInfo:
    writer = GGUFWriter(path, shape.arch)
    shape.add_keys(writer)
    writer.add_vocab_size(shape.vocab or 0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()  # none: the data section's alignment
    writer.close()
    return read_gguf(path)


def _weight_bytes(shape: Shape) -> int:
    per_block, block_bytes = Q4_0_BLOCK
    total = 0
    for _, dims, fill in shape.tensors(shape.vocab or 0):
        if isinstance(fill, str) and fill == "q4_0":
            total += dims[0] * dims[1] // per_block * block_bytes
        else:
            total += 4 * int(dims[0]) * (int(dims[1]) if len(dims) > 1 else 1)
    return total


@pytest.mark.parametrize(
    ("shape", "profile"), [(GEMMA4_31B, "gemma4-31b-dflash"), (QWEN36_27B, "qwen3.6-27b-dflash")]
)
def test_full_shapes_are_the_profiles_models(shape: Shape, profile: str, tmp_path: Path) -> None:
    spec = builtin_profiles()[profile].target
    facts = info_from_facts(spec)
    assert facts is not None and spec.facts is not None and spec.facts.size_bytes
    written = _header_only(shape, tmp_path / "header.gguf")
    for name in PLANNED:
        assert getattr(written, name) == getattr(facts, name), name
    # Q4_0 (4.5 bits a weight) against the real quantization's published or estimated size
    assert _weight_bytes(shape) == pytest.approx(spec.facts.size_bytes, rel=0.10)


def test_the_vocabulary_is_padded_to_the_real_size(smollm2_path: Path, tmp_path: Path) -> None:
    tokenizer = copy_tokenizer(smollm2_path, tmp_path / "tokenizer.gguf")
    assert tokenizer.stat().st_size < 4 * 2**20  # carried to a machine without the model
    shape = replace(GEMMA4_TINY, vocab=50000)
    written = write_random_target(tokenizer, tmp_path / "padded.gguf", shape)
    meta = read_metadata(written.path)
    assert written.vocab == read_gguf(written.path).vocab_size == 50000
    assert meta["gemma4.vocab_size"] == 50000
    with pytest.raises(ModelError, match="Q4_0 row needs a multiple of 32"):
        write_random_target(tokenizer, tmp_path / "odd.gguf", replace(GEMMA4_TINY, hidden=250))
    assert not list(tmp_path.glob("*odd*"))  # neither the file nor its temporary
    tokens = read_fields(written.path)["tokenizer.ggml.tokens"].value
    assert isinstance(tokens, tuple) and tokens[-1] == PAD_TOKEN.format(50000 - 49152 - 1)


def _complete(url: str, n_predict: int) -> Timings:
    body = {"prompt": "def main():", "n_predict": n_predict, "temperature": 0, "ignore_eos": True}
    reply = httpx.post(f"{url}/completion", json=body, timeout=120)
    reply.raise_for_status()
    return Timings.from_json(reply.json()["timings"])


def _serve(
    binary: Path, profile: Profile, target: Path, draft: Path | None, start: StartServer
) -> str:
    # One thread: two would spin at every barrier on cores other tests share (seconds a token).
    profile = replace(profile, extra_args=("--threads", "1", "--threads-draft", "1"))
    port = free_port()
    argv = build_argv(binary, profile, probe(binary), target, draft, port=port)
    return start(argv, port).url


@pytest.mark.real_server
@pytest.mark.parametrize("shape", [GEMMA4_TINY, QWEN35_TINY], ids=["gemma4", "qwen35"])
def test_the_cpu_engine_loads_and_runs_each_target(
    shape: Shape, engine: Engine, smollm2_path: Path, tmp_path: Path, start_server: StartServer
) -> None:
    target = write_random_target(smollm2_path, tmp_path / "target.gguf", shape).path
    url = _serve(engine.binary, get_profile("smol-dflash-nospec"), target, None, start_server)
    timings = _complete(url, 8)
    assert timings.predicted_n == 8 and timings.draft_n is None


@pytest.mark.real_server
@pytest.mark.parametrize(
    "shape",
    [GEMMA4_TINY, QWEN35_TINY],
    ids=["gemma4", "qwen35"],
)
def test_a_random_drafter_drafts_for_each_target(
    shape: Shape, engine: Engine, smollm2_path: Path, tmp_path: Path, start_server: StartServer
) -> None:
    # Qwen 3.6's layer 0 is a linear-attention one that keeps no KV: the drafter takes the
    # attention layers' heads.
    target = write_random_target(smollm2_path, tmp_path / "target.gguf", shape).path
    arch = drafter_arch(probe(engine.binary))
    draft = write_random_dflash_drafter(target, tmp_path / "draft.gguf", arch=arch)
    url = _serve(engine.binary, get_profile("smol-dflash"), target, draft, start_server)
    timings = _complete(url, 8)
    assert timings.predicted_n == 8 and timings.draft_n  # drafted; random drafts are refused


@pytest.mark.real_server
def test_qwen_drafts_with_its_mtp_layer(
    engine: Engine, smollm2_path: Path, tmp_path: Path, start_server: StartServer
) -> None:
    shape = replace(QWEN35_TINY, mtp_layers=1)
    target = write_random_target(smollm2_path, tmp_path / "mtp.gguf", shape)
    assert read_metadata(target.path)["qwen35.nextn_predict_layers"] == 1
    profile = replace(get_profile("smol-dflash"), spec_type="draft-mtp", draft=None, draft_max=2)
    url = _serve(engine.binary, profile, target.path, None, start_server)
    timings = _complete(url, 8)
    assert timings.predicted_n == 8 and timings.draft_n


def _bee_cpu_build() -> Path | None:
    for built in cached_engines():
        if built.source.kind == "beellama" and built.options.backend == "cpu":
            return built.binary
    return None


@pytest.mark.real_server
def test_bee_v0_2_loads_and_runs_the_qwen_target(
    smollm2_path: Path, tmp_path: Path, start_server: StartServer
) -> None:
    # Bee's CPU backend cannot run Gemma 4 (its graph scales the embeddings in BF16, which
    # ggml-cpu's scale refuses); the GPU check runs Gemma 4 on Bee's CUDA build.
    binary = _bee_cpu_build()
    if binary is None:
        pytest.skip("no BeeLlama CPU build cached (beecode server build --source beellama --cpu)")
    target = write_random_target(smollm2_path, tmp_path / "target.gguf", QWEN35_TINY).path
    url = _serve(binary, get_profile("smol-dflash-nospec"), target, None, start_server)
    assert _complete(url, 8).predicted_n == 8


@pytest.mark.real_server
def test_bee_v0_2_drafts_for_the_qwen_target(
    smollm2_path: Path, tmp_path: Path, start_server: StartServer
) -> None:
    # What the GPU check runs on Bee's CUDA build; Bee drafts only for targets it captures the
    # hidden states of (qwen35, gemma4), so a SmolLM2 target cannot show it.
    binary = _bee_cpu_build()
    if binary is None:
        pytest.skip("no BeeLlama CPU build cached (beecode server build --source beellama --cpu)")
    target = write_random_target(smollm2_path, tmp_path / "target.gguf", QWEN35_TINY).path
    draft = write_random_dflash_drafter(
        target, tmp_path / "draft.gguf", arch=drafter_arch(probe(binary))
    )
    url = _serve(binary, get_profile("smol-dflash"), target, draft, start_server)
    timings = _complete(url, 8)
    assert timings.predicted_n == 8 and timings.draft_n

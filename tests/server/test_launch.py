"""build_argv: the seed's two command lines in both flag dialects, and the launches it refuses."""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

import pytest

from server.engine.build import Engine
from server.engine.dialect import Dialect, probe
from server.engine.known_dialects import BEE_FORK as FORK
from server.engine.known_dialects import BEE_UPSTREAM, UPSTREAM
from server.errors import LaunchError, ModelError, ProfileError
from server.launch.addresses import free_port, is_loopback, port_in_use, url_for
from server.launch.llama_argv import build_argv
from server.launch.vllm_sglang import plan_engine_launch
from server.models.gguf_info import GgufInfo
from server.models.random_drafter import write_random_dflash_drafter
from server.profiles.catalog import get_profile
from server.profiles.profile import Profile

BIN = Path("/opt/llama/llama-server")
TARGET = Path("/models/gemma-4-31B-it-Q4_K_S.gguf")
DRAFT = Path("/models/gemma4-31b-it-dflash-Q5_K_M.gguf")

# The seed's DFlash line, as each dialect spells it.
SEED_DFLASH_FORK = (
    "/opt/llama/llama-server -m /models/gemma-4-31B-it-Q4_K_S.gguf"
    " -md /models/gemma4-31b-it-dflash-Q5_K_M.gguf --spec-type dflash"
    " --spec-dflash-cross-ctx 1024 -cd 256 --spec-dm-adaptive --spec-dm-controller profit"
    " -np 1 -kvu -ngl all --spec-draft-ngl all"
    " -b 2048 -ub 512 -c 32768 -fa on --jinja --metrics --reasoning off"
    " --temp 0.7 --top-k 64 --top-p 0.95 --min-p 0 --no-mmap --mlock --cache-ram 0 --no-host"
    " --host 127.0.0.1 --port 8080"
)
SEED_DFLASH_UPSTREAM = (
    "/opt/llama/llama-server -m /models/gemma-4-31B-it-Q4_K_S.gguf"
    " -md /models/gemma4-31b-it-dflash-Q5_K_M.gguf --spec-type draft-dflash"
    " --spec-draft-n-max 15 -np 1 -kvu -ngl all --spec-draft-ngl all"
    " -b 2048 -ub 512 -c 32768 -fa on --jinja --metrics --reasoning off"
    " --temp 0.7 --top-k 64 --top-p 0.95 --min-p 0 --load-mode mlock --cache-ram 0 --no-host"
    " --host 127.0.0.1 --port 8080"
)
# The seed's no-speculation baseline, with its q5_0/q4_1 KV cache.
SEED_BASELINE_FORK = (
    "/opt/llama/llama-server -m /models/gemma-4-31B-it-Q4_K_S.gguf -np 1 -kvu -ngl all"
    " -b 2048 -ub 512 -c 32768 -fa on -ctk q5_0 -ctv q4_1 --jinja --metrics --reasoning off"
    " --temp 0.7 --top-k 64 --top-p 0.95 --min-p 0 --no-mmap --mlock --cache-ram 0 --no-host"
    " --host 127.0.0.1 --port 8080"
)
SEED_BASELINE_UPSTREAM = (
    "/opt/llama/llama-server -m /models/gemma-4-31B-it-Q4_K_S.gguf -np 1 -kvu -ngl all"
    " -b 2048 -ub 512 -c 32768 -fa on -ctk q5_0 -ctv q4_1 --jinja --metrics --reasoning off"
    " --temp 0.7 --top-k 64 --top-p 0.95 --min-p 0 --load-mode mlock --cache-ram 0 --no-host"
    " --host 127.0.0.1 --port 8080"
)


def gguf(path: Path, architecture: str, vocab: int = 262144) -> GgufInfo:
    """Metadata as read_gguf returns it; only architecture and vocabulary matter to build_argv."""
    return GgufInfo(
        path=path, architecture=architecture, name=path.stem, size_bytes=1, context_length=32768,
        block_count=5, embedding_length=5376, head_count=32, head_count_kv=(8,) * 5,
        key_length=128, value_length=128, key_length_swa=None, value_length_swa=None,
        sliding_window=None, swa_layers=(False,) * 5, vocab_size=vocab, dflash_block_size=16,
        has_chat_template=False,
    )  # fmt: skip


GEMMA = get_profile("gemma4-31b-dflash")
TARGET_INFO = gguf(TARGET, "gemma4")


def dflash_argv(dialect: Dialect, arch: str, profile: Profile = GEMMA) -> list[str]:
    return build_argv(
        BIN,
        profile,
        dialect,
        TARGET,
        DRAFT,
        port=8080,
        target_info=TARGET_INFO,
        draft_info=gguf(DRAFT, arch),
    )


@pytest.mark.parametrize(
    ("dialect", "arch", "line"),
    [(FORK, "dflash-draft", SEED_DFLASH_FORK), (UPSTREAM, "dflash", SEED_DFLASH_UPSTREAM)],
)
def test_seed_dflash_line_in_each_dialect(dialect: Dialect, arch: str, line: str) -> None:
    assert dflash_argv(dialect, arch) == line.split()


@pytest.mark.parametrize(
    ("dialect", "line"), [(FORK, SEED_BASELINE_FORK), (UPSTREAM, SEED_BASELINE_UPSTREAM)]
)
def test_seed_baseline_line_in_each_dialect(dialect: Dialect, line: str) -> None:
    baseline = get_profile("gemma4-31b-dflash-nospec")
    argv = build_argv(BIN, baseline, dialect, TARGET, None, port=8080, cache_types=("q5_0", "q4_1"))
    assert argv == line.split()


def test_bee_04_dflash_runs_under_the_profit_controller_upstream_has_none() -> None:
    bee = dflash_argv(BEE_UPSTREAM, "dflash")
    assert bee[bee.index("--spec-dm-controller") + 1] == "profit"
    assert "--spec-dm-controller" not in dflash_argv(UPSTREAM, "dflash")
    # MTP is no DFlash: the controller does not drive it (its brake is --spec-draft-p-min).
    mtp = get_profile("qwen3.6-27b-mtp")
    argv = build_argv(BIN, mtp, BEE_UPSTREAM, TARGET, None, port=8080, target_info=TARGET_INFO)
    assert "--spec-dm-controller" not in argv
    assert argv[argv.index("--spec-draft-p-min") + 1] == "0.75"


def test_a_draft_cap_on_ngram_mod_sets_its_own_length_flag() -> None:
    # ngram-mod reads --spec-ngram-mod-n-max; --spec-draft-n-max would be silently ignored.
    tiny = replace(get_profile("tiny"), draft_max=16)
    argv = build_argv(BIN, tiny, UPSTREAM, TARGET, None, port=8080, target_info=TARGET_INFO)
    assert argv[argv.index("--spec-ngram-mod-n-max") + 1] == "16"
    assert "--spec-draft-n-max" not in argv
    plain = build_argv(
        BIN, get_profile("tiny"), UPSTREAM, TARGET, None, port=8080, target_info=TARGET_INFO
    )
    assert "--spec-ngram-mod-n-max" not in plain and "--spec-draft-n-max" not in plain


def test_a_draft_the_dialect_cannot_run_is_refused_before_launch() -> None:
    with pytest.raises(ModelError, match=r"BeeLlama <= 0\.3 drafter .*'dflash-draft'"):
        dflash_argv(UPSTREAM, "dflash-draft")
    with pytest.raises(ModelError, match=r"upstream-format drafter .*'dflash'"):
        dflash_argv(FORK, "dflash")
    with pytest.raises(ModelError, match="architecture 'qwen2', not a DFlash drafter"):
        dflash_argv(UPSTREAM, "qwen2")
    no_dflash = replace(UPSTREAM, dflash_type=None)
    with pytest.raises(LaunchError, match="no DFlash support"):
        dflash_argv(no_dflash, "dflash")


def test_dflash_without_a_draft_is_a_profile_error() -> None:
    with pytest.raises(ProfileError, match="names no draft"):
        build_argv(BIN, GEMMA, UPSTREAM, TARGET, None, port=8080)


def test_unknown_spec_and_cache_types_are_refused() -> None:
    tiny = get_profile("tiny")
    with pytest.raises(LaunchError, match="does not know --spec-type ngram-mod"):
        build_argv(BIN, tiny, replace(UPSTREAM, spec_types=("none",)), TARGET, None, port=1)
    turbo = replace(GEMMA, cache_type_k="turbo3", cache_type_v="turbo3")
    assert "turbo3" in dflash_argv(FORK, "dflash-draft", profile=turbo)
    with pytest.raises(LaunchError, match="cache type k=turbo3"):
        dflash_argv(UPSTREAM, "dflash", profile=turbo)


def simple_draft_argv(draft_arch: str, vocab: int) -> list[str]:
    simple = replace(GEMMA, spec_type="draft-simple")
    draft_info = gguf(DRAFT, draft_arch, vocab=vocab)
    return build_argv(BIN, simple, UPSTREAM, TARGET, DRAFT, port=8080, target_info=TARGET_INFO,
                      draft_info=draft_info)  # fmt: skip


def test_a_draft_model_must_share_the_target_vocabulary() -> None:
    with pytest.raises(ModelError, match="49152-token vocabulary"):
        simple_draft_argv("llama", 49152)
    argv = simple_draft_argv("gemma4", TARGET_INFO.vocab_size)
    assert argv[1:7] == ["-m", str(TARGET), "-md", str(DRAFT), "--spec-type", "draft-simple"]


def test_flags_the_binary_does_not_list_are_left_out() -> None:
    sparse = replace(
        UPSTREAM,
        flags=UPSTREAM.flags
        - {"-kvu", "--kv-unified", "--metrics", "--no-host", "-cram", "--cache-ram"},
    )
    argv = dflash_argv(sparse, "dflash")
    assert not {"-kvu", "--metrics", "--no-host", "--cache-ram"} & set(argv)
    assert argv[argv.index("mlock") + 1] == "--host"  # --cache-ram's value left with it
    long_only = replace(UPSTREAM, flags=UPSTREAM.flags - {"-m", "-md", "-c"})
    argv = dflash_argv(long_only, "dflash")
    assert argv[1:5] == ["--model", str(TARGET), "--spec-draft-model", str(DRAFT)]
    assert "--ctx-size" in argv and "-c" not in argv


def test_binding_beyond_loopback_needs_an_api_key() -> None:
    tiny = get_profile("tiny")
    with pytest.raises(LaunchError, match="pass an API key"):
        build_argv(BIN, tiny, UPSTREAM, TARGET, None, host="0.0.0.0", port=8080)
    argv = build_argv(BIN, tiny, UPSTREAM, TARGET, None, host="0.0.0.0", port=8080, api_key="k")
    assert argv[-6:] == ["--host", "0.0.0.0", "--port", "8080", "--api-key", "k"]
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert (
        url_for("0.0.0.0", 80) == "http://127.0.0.1:80" and url_for("::1", 80) == "http://[::1]:80"
    )


def test_a_listening_port_is_seen_as_busy() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        assert port_in_use("127.0.0.1", sock.getsockname()[1])
    assert not port_in_use("127.0.0.1", free_port())


def test_vllm_and_sglang_dflash_launches() -> None:
    assert plan_engine_launch("vllm", GEMMA) == (
        "vllm serve google/gemma-4-31B-it \\\n"
        "  --speculative-config "
        '\'{"method":"dflash","model":"z-lab/gemma-4-31B-it-DFlash",'
        '"num_speculative_tokens":15}\' \\\n'
        "  --attention-backend flash_attn \\\n"
        "  --max-num-batched-tokens 32768 \\\n"
        "  --max-model-len 32768 \\\n"
        "  --host 127.0.0.1 --port 8000"
    )
    assert plan_engine_launch("sglang", GEMMA) == (
        "SGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server \\\n"
        "  --model-path google/gemma-4-31B-it \\\n"
        "  --speculative-algorithm DFLASH \\\n"
        "  --speculative-draft-model-path z-lab/gemma-4-31B-it-DFlash \\\n"
        "  --speculative-num-draft-tokens 16 \\\n"
        "  --context-length 32768 \\\n"
        "  --mem-fraction-static 0.75 \\\n"
        "  --host 127.0.0.1 --port 30000"
    )
    with pytest.raises(ProfileError, match="no vllm DFlash launch is known for profile 'tiny'"):
        plan_engine_launch("vllm", get_profile("tiny"))


def _flags(argv: list[str]) -> set[str]:
    return {a for a in argv[1:] if a.startswith("-") and not a[1:2].isdigit()}


@pytest.mark.real_server
def test_every_emitted_flag_is_one_the_real_binary_lists(
    engine: Engine, qwen_path: Path, smollm2_path: Path, dflash_drafter_path: Path
) -> None:
    dialect = probe(engine.binary)
    tiny = build_argv(engine.binary, get_profile("tiny"), dialect, qwen_path, None, port=8080)
    capped = replace(get_profile("tiny"), draft_max=16)
    tiny += build_argv(engine.binary, capped, dialect, qwen_path, None, port=8080)[1:]
    smol = build_argv(
        engine.binary,
        get_profile("smol-dflash"),
        dialect,
        smollm2_path,
        dflash_drafter_path,
        port=8080,
    )
    assert _flags(tiny) <= dialect.flags and _flags(smol) <= dialect.flags
    assert "--spec-ngram-mod-n-max" in tiny
    assert "--spec-type" in tiny and tiny[tiny.index("--spec-type") + 1] == "ngram-mod"
    assert smol[smol.index("--spec-type") + 1] == "draft-dflash"


@pytest.mark.real_server
def test_a_bee_format_drafter_file_is_refused_by_the_real_upstream_engine(
    engine: Engine, smollm2_path: Path, tmp_path: Path
) -> None:
    bee_draft = tmp_path / "bee.gguf"
    write_random_dflash_drafter(smollm2_path, bee_draft, arch="dflash-draft")
    with pytest.raises(ModelError, match="'dflash-draft'"):
        build_argv(
            engine.binary,
            get_profile("smol-dflash"),
            probe(engine.binary),
            smollm2_path,
            bee_draft,
            port=8080,
        )


def test_the_slot_folder_and_the_qwen36_template_kwargs_reach_the_command() -> None:
    qwen = get_profile("qwen3.6-27b-dflash")
    more = {"--slot-save-path", "--chat-template-kwargs"}
    listed = replace(UPSTREAM, flags=UPSTREAM.flags | more)
    argv = build_argv(
        BIN, qwen, listed, TARGET, DRAFT, port=8080, target_info=TARGET_INFO,
        draft_info=gguf(DRAFT, "dflash"), slot_dir=Path("/state/slots"),
    )  # fmt: skip
    assert argv[argv.index("--slot-save-path") + 1] == "/state/slots"
    assert argv[argv.index("--chat-template-kwargs") + 1] == '{"preserve_thinking": true}'
    # A binary that lists neither runs without them.
    plain = build_argv(
        BIN, qwen, UPSTREAM, TARGET, DRAFT, port=8080, target_info=TARGET_INFO,
        draft_info=gguf(DRAFT, "dflash"), slot_dir=Path("/state/slots"),
    )  # fmt: skip
    assert "--slot-save-path" not in plain and "--chat-template-kwargs" not in plain

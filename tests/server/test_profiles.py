"""Built-in profiles, their baseline twins, the default choice, and profiles.toml overrides."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from server.engine.gpu import Gpu
from server.errors import ProfileError
from server.models.spec import QWEN25_CODER_05B, SMOLLM2_135M, ModelSpec
from server.profiles.builtin import builtin_profiles, default_profile_name
from server.profiles.catalog import get_profile, load_profiles

SPECULATIVE = (
    "gemma4-31b-dflash", "qwen3.6-27b-dflash", "gemma4-31b-mtp", "qwen3.6-27b-mtp", "tiny",
    "smol-dflash",
)  # fmt: skip


def _config(tmp_path: Path, text: str) -> Path:
    (tmp_path / "profiles.toml").write_text(text)
    return tmp_path


def test_builtins_and_their_twins() -> None:
    profiles = builtin_profiles()
    assert set(profiles) == {*SPECULATIVE, *(f"{n}-nospec" for n in SPECULATIVE)}
    for name in SPECULATIVE:
        profile, twin = profiles[name], profiles[f"{name}-nospec"]
        assert profile.baseline == twin.name and twin.baseline is None
        assert twin.draft is None and twin.spec_type is None
        assert (twin.target, twin.ctx, twin.backend, twin.sampling) == (
            profile.target, profile.ctx, profile.backend, profile.sampling)  # fmt: skip


def test_gemma_profile_is_the_seed_setup() -> None:
    p = get_profile("gemma4-31b-dflash", Path("/nonexistent"))
    assert replace(p.target, facts=None) == ModelSpec(
        "hf", repo="unsloth/gemma-4-31B-it-GGUF", filename="gemma-4-31B-it-Q4_K_S.gguf"
    )
    assert p.draft is not None and replace(p.draft, facts=None) == ModelSpec(
        "hf", repo="Anbeeld/gemma-4-31B-it-DFlash-GGUF", filename="gemma4-31b-it-dflash-Q5_K_M.gguf"
    )
    assert (p.spec_type, p.backend, p.n_parallel, p.gpu_layers) == ("dflash", "cuda", 1, "all")
    assert (p.batch, p.ubatch, p.ctx, p.flash_attn, p.reasoning) == (2048, 512, 32768, True, "off")
    assert p.sampling == {"temperature": 0.7, "top_k": 64, "top_p": 0.95, "min_p": 0.0}
    assert p.cache_type_k is None and p.cache_type_v is None  # the seed's DFlash run used f16


def test_cpu_profiles() -> None:
    tiny = builtin_profiles()["tiny"]
    assert tiny.target == QWEN25_CODER_05B and tiny.draft is None
    assert (tiny.backend, tiny.spec_type, tiny.ctx) == ("cpu", "ngram-mod", 8192)
    assert tiny.n_parallel == 1
    smol = builtin_profiles()["smol-dflash"]
    assert smol.target == SMOLLM2_135M and smol.spec_type == "dflash" and smol.ctx == 2048
    assert smol.draft is not None and smol.draft.kind == "random-dflash"
    assert smol.draft.base == SMOLLM2_135M


def test_default_profile_follows_the_gpu() -> None:
    def card(total_mib: int) -> Gpu:
        return Gpu(0, "card", total_mib, total_mib - 500, "8.9")

    assert default_profile_name([]) == "tiny"
    assert default_profile_name([card(8192)]) == "tiny"
    assert default_profile_name([card(24564)]) == "gemma4-31b-dflash"
    assert default_profile_name([card(8192), card(81559)]) == "gemma4-31b-dflash"


def test_unknown_profile_names_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"unknown profile 'huge' \(known: gemma4-31b-dflash, "):
        get_profile("huge", tmp_path)


def test_no_file_means_builtins(tmp_path: Path) -> None:
    assert load_profiles(tmp_path) == builtin_profiles()


def test_overrides_reach_the_twin(tmp_path: Path) -> None:
    config = _config(tmp_path, "[tiny]\nctx = 4096\nsampling = { temperature = 0.2 }\n")
    profiles = load_profiles(config)
    assert profiles["tiny"].ctx == 4096 and profiles["tiny-nospec"].ctx == 4096
    assert profiles["tiny"].sampling == {"temperature": 0.2, "top_k": 20, "top_p": 0.8, "min_p": 0}
    assert profiles["tiny"].baseline == "tiny-nospec"
    assert profiles["gemma4-31b-dflash"] == builtin_profiles()["gemma4-31b-dflash"]


def test_new_profiles_from_a_base_or_from_scratch(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        """
[my-gemma]
base = "gemma4-31b-dflash"
ctx = 16384
cache_type_k = "q8_0"
cache_type_v = "q8_0"

[local]
target = "~/models/coder.gguf"
draft = { hf = "owner/drafts", file = "d.gguf", sha256 = "%s" }
spec_type = "dflash"
extra_args = ["--threads", "4"]

["tiny-nospec"]
ctx = 2048
"""
        % ("ab" * 32),
    )
    profiles = load_profiles(config)
    mine = profiles["my-gemma"]
    assert (mine.name, mine.ctx, mine.cache_type_k) == ("my-gemma", 16384, "q8_0")
    assert mine.backend == "cuda"
    assert mine.draft == builtin_profiles()["gemma4-31b-dflash"].draft
    assert mine.baseline == "my-gemma-nospec" and profiles["my-gemma-nospec"].ctx == 16384
    local = profiles["local"]
    assert local.target == ModelSpec("local", path="~/models/coder.gguf")
    assert local.draft == ModelSpec("hf", repo="owner/drafts", filename="d.gguf", sha256="ab" * 32)
    assert (local.backend, local.ctx, local.extra_args) == ("cpu", 8192, ("--threads", "4"))
    assert profiles["tiny-nospec"].ctx == 2048 and profiles["tiny"].ctx == 8192


def test_speculation_can_be_turned_off(tmp_path: Path) -> None:
    config = _config(tmp_path, '[gemma4-31b-dflash]\ndraft = false\nspec_type = "none"\n')
    gemma = load_profiles(config)["gemma4-31b-dflash"]
    assert gemma.draft is None and gemma.spec_type is None and gemma.baseline is None


def test_dropping_the_draft_drops_draft_speculation_but_keeps_ngram(tmp_path: Path) -> None:
    config = _config(tmp_path, "[gemma4-31b-dflash]\ndraft = false\n\n[tiny]\ndraft = false\n")
    profiles = load_profiles(config)
    assert profiles["gemma4-31b-dflash"].spec_type is None
    assert profiles["tiny"].spec_type == builtin_profiles()["tiny"].spec_type


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("[tiny]\nctx = 4096\nctxx = 1\n", 3, "'tiny', key 'ctxx': unknown key (known: base,"),
        ('# mine\n\n[tiny]\nctx = "big"\n', 4, "key 'ctx': expected a positive integer, got 'big'"),
        ("[tiny]\nflash_attn = 1\n", 2, "key 'flash_attn': expected true or false, got 1"),
        ('[tiny]\nbackend = "rocm"\n', 2, "key 'backend': expected one of cpu, cuda, got 'rocm'"),
        ('[tiny]\ncache_type_k = "q7"\n', 2, "key 'cache_type_k': expected a KV cache type (f32,"),
        ("[tiny]\nsampling = { temp = 1 }\n", 2, "key 'sampling': expected numbers for"),
        ('[a]\nbase = "tiny"\n\n[b]\ntarget = { hf = "o/r" }\n', 5, "'target': expected a string"),
        ('[x]\nbase = "nope"\n', 2, "key 'base': names no known profile (known: gemma4-31b-dflash"),
        ("[x]\nctx = 1024\n", 1, "profile 'x': a new profile needs a target model"),
        ("ctx = 1024\n", 1, "profile 'ctx': must be a [table] of settings"),
        ('[tiny]\nsha = { path = "/m.gguf", sha256 = "XYZ" }\n', 2, "unknown key"),
        ('[tiny]\ntarget = { path = "/m", sha256 = "XYZ" }\n', 2, "sha256 must be 64 lowercase"),
    ],
)
def test_bad_toml_names_file_line_and_key(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    config = _config(tmp_path, text)
    with pytest.raises(ProfileError) as caught:
        load_profiles(config)
    assert str(caught.value).startswith(f"{config / 'profiles.toml'}:{line}: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_toml_syntax_errors_are_one_line(tmp_path: Path) -> None:
    config = _config(tmp_path, "[tiny\nctx = 1\n")
    with pytest.raises(ProfileError, match=r"profiles\.toml: .*line 1"):
        load_profiles(config)

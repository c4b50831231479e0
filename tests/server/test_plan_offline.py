"""`beecode server plan` on a machine with nothing built or downloaded, for cards it does not have,
and the profile facts and release dialects it plans from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.engine.build import BEELLAMA_SOURCE, BuildOptions, Engine, ensure_engine
from server.engine.dialect import parse_help, probe
from server.engine.gpu import gpus, planned_card
from server.engine.known_dialects import BEE_FORK, BEE_UPSTREAM, UPSTREAM, presumed_dialect
from server.engine.sources import BEELLAMA_LATEST_SOURCE, PYPI_SOURCE, EngineSource
from server.errors import BuildError
from server.launch.fit import GIB, kv_cache_bytes
from server.models.gguf_info import info_from_facts
from server.profiles.catalog import get_profile

SEED_DFLASH = (
    "llama-server -m gemma-4-31B-it-Q4_K_S.gguf -md gemma4-31b-it-dflash-Q5_K_M.gguf"
    " --spec-type dflash --spec-dflash-cross-ctx 1024 -cd 256 --spec-dm-adaptive"
    " --spec-dm-controller profit -np 1 -kvu -ngl all"
    " --spec-draft-ngl all -b 2048 -ub 512 -c 32768 -fa on --jinja --metrics --reasoning off"
    " --temp 0.7 --top-k 64 --top-p 0.95 --min-p 0 --no-mmap --mlock --cache-ram 0 --no-host"
    " --host 127.0.0.1 --port 8080"
)


def plan(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI with empty caches, offline, and no nvidia-smi on PATH."""
    env = {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + "/usr/bin:/bin",
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_CACHE": str(tmp_path / "hf"),
    }
    for name in ("CACHE", "STATE", "CONFIG"):
        env[f"BEECODE_{name}_DIR"] = str(tmp_path / name.lower())
    return subprocess.run(
        [sys.executable, "-m", "agent", "server", "plan", *args],
        env=env,
        text=True,
        capture_output=True,
        timeout=120,
    )


def test_the_seed_setup_is_planned_without_a_gpu_a_build_or_a_download(tmp_path: Path) -> None:
    done = plan(tmp_path, "--profile", "gemma4-31b-dflash")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert SEED_DFLASH in lines  # BeeLlama v0.2.0's dialect, as the seed ran it
    assert "# engine beellama v0.2.0 (cuda, architectures unknown): not built" in done.stdout
    assert "give --cuda-archs (or --gpu)" in done.stdout
    assert "# needs about 23.82 GiB of GPU memory (no card to fit it to" in done.stdout
    assert "weights 16.39 GiB + KV 3.67 GiB" in done.stdout  # llama-server.md §4
    assert "not downloaded; 16.39 GiB (estimated" in done.stdout
    cache = tmp_path / "cache"
    assert not list(cache.rglob("*.gguf")) and not list((cache / "engines").glob("*"))
    assert not (tmp_path / "hf").exists() or not list((tmp_path / "hf").rglob("*.gguf"))


def test_a_card_not_in_this_machine_is_planned_for(tmp_path: Path) -> None:
    on_4090 = plan(tmp_path, "--profile", "gemma4-31b-dflash", "--gpu", "RTX 4090")
    assert on_4090.returncode == 0, on_4090.stderr
    assert "# engine beellama v0.2.0 (cuda 89): not built" in on_4090.stdout
    assert "# fits: 23.82 GiB of 24.00 GiB free at 32768 context with f16/f16 KV" in on_4090.stdout
    small = plan(tmp_path, "--profile", "gemma4-31b-dflash", "--vram", "22", "--cuda-archs", "86")
    assert small.returncode == 0, small.stderr
    assert "(cuda 86)" in small.stdout and "# fits after stepping down: " in small.stdout
    tiny_card = plan(tmp_path, "--profile", "gemma4-31b-dflash", "--vram", "12")
    assert "# does not fit: even 2048 context" in tiny_card.stdout
    unknown = plan(tmp_path, "--gpu", "Voodoo 5")
    assert unknown.returncode == 1 and "Traceback" not in unknown.stderr
    assert unknown.stderr.strip().splitlines()[-1].startswith("beecode: unknown card 'Voodoo 5'")


def test_a_draft_of_unknown_size_is_said_to_be_left_out_and_is_no_figure(tmp_path: Path) -> None:
    done = plan(tmp_path, "--profile", "qwen3.6-27b-dflash", "--vram", "24")
    assert done.returncode == 0, done.stderr
    assert "-DFlash-Q4_K_M.gguf: not downloaded; size unknown (" in done.stdout
    [budget] = [line for line in done.stdout.splitlines() if line.startswith("# weights ")]
    assert "draft" not in budget  # no figure for what is not known
    assert (
        "# the draft is left out of this budget: its size is unknown until fetched" in done.stdout
    )
    known = plan(tmp_path, "--profile", "gemma4-31b-dflash", "--vram", "24")
    assert "+ draft 1.22 GiB +" in known.stdout and "draft is left out" not in known.stdout


def test_mtp_profiles_plan_bee_04_flags(tmp_path: Path) -> None:
    gemma = plan(tmp_path, "--profile", "gemma4-31b-mtp", "--gpu", "3090")
    assert gemma.returncode == 0, gemma.stderr
    command = next(line for line in gemma.stdout.splitlines() if line.startswith("llama-server"))
    assert "-md mtp-gemma-4-31B-it.gguf --spec-type draft-mtp --spec-draft-n-max 4" in command
    assert "--load-mode mlock" in command and "--spec-draft-p-min 0.75" in command
    assert "-cd" not in command.split() and "--mlock" not in command.split()
    assert "# engine beellama v0.4.4 (cuda 86): not built" in gemma.stdout
    assert "# fits: " in gemma.stdout
    qwen = plan(tmp_path, "--profile", "qwen3.6-27b-mtp", "--gpu", "4090")
    assert "-m Qwen3.6-27B-Q4_K_M.gguf --spec-type draft-mtp --spec-draft-n-max 2" in qwen.stdout
    assert " -md " not in qwen.stdout  # the MTP head is inside the target file


def test_the_cpu_profile_is_planned_before_its_model_is_fetched(tmp_path: Path) -> None:
    done = plan(tmp_path, "--profile", "tiny")
    assert done.returncode == 0, done.stderr
    assert "# engine pypi 11434.0.0 (cpu): not built" in done.stdout
    assert "--spec-type ngram-mod" in done.stdout and "--load-mode" not in done.stdout
    assert "# runs on CPU: needs about 0.95 GiB of RAM" in done.stdout


def test_a_profile_without_facts_says_to_fetch(tmp_path: Path) -> None:
    done = plan(tmp_path, "--profile", "smol-dflash")
    assert done.returncode == 1
    assert "states no facts about it; fetch it first" in done.stderr.splitlines()[-1]


def test_profile_facts_give_the_seed_figures() -> None:
    gemma = info_from_facts(get_profile("gemma4-31b-dflash").target)
    assert gemma is not None and gemma.architecture == "gemma4"
    assert sum(gemma.swa_layers) == 50 and gemma.head_count_kv[5] == 4
    # llama-server.md §4: f16 KV at 32K is 3.67 GiB, q5_0/q4_1 1.20 GiB.
    assert round(kv_cache_bytes(gemma, 32768, "f16", "f16") / GIB, 2) == 3.67
    assert round(kv_cache_bytes(gemma, 32768, "q5_0", "q4_1") / GIB, 2) == 1.20
    qwen = info_from_facts(get_profile("qwen3.6-27b-dflash").target)
    assert qwen is not None and sum(1 for h in qwen.head_count_kv if h) == 16


def test_each_release_has_its_dialect() -> None:
    assert presumed_dialect(BEELLAMA_SOURCE) is BEE_FORK  # v0.2.0
    assert presumed_dialect(EngineSource("beellama", "v0.3.1")) is BEE_FORK
    assert presumed_dialect(BEELLAMA_LATEST_SOURCE) is BEE_UPSTREAM
    assert presumed_dialect(EngineSource("beellama", "main")) is BEE_UPSTREAM
    assert presumed_dialect(PYPI_SOURCE) is UPSTREAM
    assert "draft-mtp" in BEE_UPSTREAM.spec_types and "draft-mtp" not in BEE_FORK.spec_types


def test_the_bee_dialects_match_their_releases_help() -> None:
    data = Path(__file__).parent / "data"
    fork = parse_help((data / "help-bee-0.3.txt").read_text())
    bee04 = parse_help((data / "help-bee-0.4.txt").read_text())
    assert (fork.spec_types, fork.cache_types) == (BEE_FORK.spec_types, BEE_FORK.cache_types)
    fork_only = {"--spec-dflash-cross-ctx", "-cd", "--no-mmap", "--mlock"}
    assert fork_only <= fork.flags & BEE_FORK.flags and "--load-mode" not in BEE_FORK.flags
    assert (bee04.spec_types, bee04.cache_types) == (
        BEE_UPSTREAM.spec_types,
        BEE_UPSTREAM.cache_types,
    )
    assert {"--load-mode", "--spec-dm-controller"} <= bee04.flags & BEE_UPSTREAM.flags
    assert not {"--spec-dflash-cross-ctx", "-cd"} & (bee04.flags | BEE_UPSTREAM.flags)


def test_cards_by_name_or_memory() -> None:
    assert planned_card(None, None, None) is None
    card = planned_card("geforce rtx 4090", None, None)
    assert card is not None and (card.name, card.memory_free_mib, card.cuda_arch) == (
        "RTX 4090",
        24 * 1024,
        "89",
    )
    given = planned_card(None, 11.5, "75")
    assert given is not None and given.memory_total_mib == 11776 and given.cuda_arch == "75"
    with pytest.raises(ValueError, match="unknown card 'A100'"):
        planned_card("A100", None, None)  # two A100s: the name must say which


@pytest.mark.skipif(bool(gpus()), reason="a visible GPU gives the architectures")
def test_building_cuda_without_a_gpu_names_the_flag() -> None:
    with pytest.raises(BuildError, match="--cuda-archs 89"):
        ensure_engine(BEELLAMA_SOURCE, BuildOptions("cuda"))


@pytest.mark.real_server
def test_the_upstream_dialect_is_the_real_b11434_binarys(engine: Engine) -> None:
    real = probe(engine.binary)
    assert UPSTREAM.flags <= real.flags
    assert set(UPSTREAM.spec_types) == set(real.spec_types)
    assert UPSTREAM.cache_types == real.cache_types and real.load_mode

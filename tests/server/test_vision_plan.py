"""The Gemma 4 profiles' vision projector in the plan: launched (`--mmproj`) where it fits beside
the full context, counted in the budget, and the plan says when and why it is left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.engine.build import Engine
from server.engine.known_dialects import BEE_FORK
from server.launch.fit import GIB, PROJECTOR_COMPUTE_MIB, plan_memory
from server.launch.llama_argv import build_argv
from server.launch.plan import prepare_launch
from server.models.gguf_info import info_from_facts
from server.models.random_mmproj import write_random_mmproj
from server.profiles.catalog import get_profile
from tests.server.test_plan_offline import plan

PROJECTOR = "--mmproj mmproj-F16.gguf"


def with_vision(tmp_path: Path, mode: str) -> None:
    """profiles.toml setting the seed profile's ``vision``."""
    folder = tmp_path / "config"
    folder.mkdir(exist_ok=True)
    (folder / "profiles.toml").write_text(f'[gemma4-31b-dflash]\nvision = "{mode}"\n')


def test_a_card_with_room_gets_the_projector_counted_at_full_context(tmp_path: Path) -> None:
    done = plan(tmp_path, "--profile", "gemma4-31b-dflash", "--vram", "48")
    assert done.returncode == 0, done.stderr
    assert PROJECTOR in done.stdout and " -c 32768 " in done.stdout
    assert "# fits: 25.42 GiB of 48.00 GiB free at 32768 context" in done.stdout
    assert "+ vision projector 1.61 GiB +" in done.stdout  # 1.19 GB file + its compute buffer


def test_a_24_gb_card_keeps_its_context_and_says_the_projector_is_left_out(
    tmp_path: Path,
) -> None:
    done = plan(tmp_path, "--profile", "gemma4-31b-dflash", "--vram", "24")
    assert done.returncode == 0, done.stderr
    assert "--mmproj" not in done.stdout and " -c 32768 " in done.stdout
    assert (
        "# vision projector left out: 32768 context with it needs 25.42 GiB of 24.00 GiB free; "
        'vision = "on" trades context for it'
    ) in done.stdout


def test_vision_on_steps_down_for_the_projector_and_says_so(tmp_path: Path) -> None:
    with_vision(tmp_path, "on")
    done = plan(tmp_path, "--profile", "gemma4-31b-dflash", "--vram", "24")
    assert done.returncode == 0, done.stderr
    assert PROJECTOR in done.stdout and "-ctk q8_0 -ctv q8_0" in done.stdout
    assert "# fits after stepping down: 32768 context with q8_0/q8_0 KV" in done.stdout
    assert (
        '# vision = "on": stepped down to make room for the vision projector (1.61 GiB); '
        "without it 32768 context with f16/f16 KV fits"
    ) in done.stdout


def test_vision_off_never_loads_it(tmp_path: Path) -> None:
    with_vision(tmp_path, "off")
    done = plan(tmp_path, "--profile", "gemma4-31b-dflash", "--vram", "48")
    assert done.returncode == 0, done.stderr
    assert "--mmproj" not in done.stdout and "vision projector" not in done.stdout


def test_without_a_card_the_plan_says_how_to_count_it(tmp_path: Path) -> None:
    done = plan(tmp_path, "--profile", "gemma4-31b-mtp")
    assert done.returncode == 0, done.stderr
    assert "--mmproj" not in done.stdout
    assert "# vision projector left out: whether it fits is known only for a card" in done.stdout


def test_the_budget_counts_the_projector_file_and_its_compute() -> None:
    profile = get_profile("gemma4-31b-dflash")
    target = info_from_facts(profile.target)
    assert target is not None and profile.mmproj is not None
    size = 1 << 30
    memory = plan_memory(profile, target, None, 48 * 1024.0, None, size)
    without = plan_memory(profile, target, None, 48 * 1024.0, None, None)
    assert memory.vision and not without.vision
    assert memory.total_mib - without.total_mib == pytest.approx(1024 + PROJECTOR_COMPUTE_MIB)
    assert "vision projector left out: its size is unknown until fetched" in without.explanation
    assert memory.total_mib < 48 * GIB


def test_the_argv_loads_the_projector(tmp_path: Path) -> None:
    profile = get_profile("tiny")
    model = tmp_path / "m.gguf"
    argv = build_argv(
        Path("llama-server"), profile, BEE_FORK, model, None, port=8080,
        target_info=info_from_facts(profile.target), mmproj=tmp_path / "mmproj.gguf",
    )  # fmt: skip
    at = argv.index("--mmproj")
    assert argv[at + 1] == str(tmp_path / "mmproj.gguf")


def test_server_up_loads_a_projector_on_disk_as_server_plan_counts_it(
    engine: Engine, qwen_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A local projector states no size; the file's own is known, so `server up` loads it.
    projector = write_random_mmproj(qwen_path, tmp_path / "mmproj.gguf")
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "profiles.toml").write_text(
        f'[eyes]\nbase = "tiny"\nmmproj = {{path = "{projector}"}}\nvision = "on"\n'
    )
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(folder))
    launch = prepare_launch("eyes", port=8080)
    assert launch.mmproj == projector and launch.memory is not None and launch.memory.vision
    assert launch.argv[launch.argv.index("--mmproj") + 1] == str(projector)

"""Real servers, real models: `tiny` answers with timings; n-gram, draft-model and DFlash
speculation each report draft_n and draft_n_accepted."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from server.client import Timings, chat, get_metrics, get_props, get_slots
from server.engine.build import Engine
from server.engine.dialect import probe
from server.health import health
from server.launch.addresses import free_port
from server.launch.llama_argv import build_argv
from server.process.managed import ManagedServer
from server.profiles.catalog import get_profile

pytestmark = pytest.mark.real_server
StartServer = Callable[[list[str], int], ManagedServer]

# Copy-heavy output is where n-gram speculation drafts (cpu-rig.md §7).
CODE = "\n".join(
    f"def step_{i}(values):\n    total = sum(values) + {i}\n    return total * {i}\n"
    for i in range(8)
)
COPY = [{"role": "user", "content": f"Repeat this code exactly, nothing else:\n\n{CODE}"}]
COUNT = [{"role": "user", "content": "Count from 1 to 20."}]


def ask(url: str, messages: list[dict[str, Any]], max_tokens: int) -> Timings:
    _, timings = chat(url, messages, max_tokens=max_tokens, temperature=0)
    return timings


def test_tiny_answers_with_timings_and_ngram_drafts(tiny_server: str) -> None:
    assert health(tiny_server) == 200
    assert get_props(tiny_server).n_ctx == 8192
    text, timings = chat(
        tiny_server, [{"role": "user", "content": "Say hi."}], max_tokens=8, temperature=0
    )
    assert text and timings.prompt_n > 0 and 0 < timings.predicted_n <= 8
    copy = ask(tiny_server, COPY, max_tokens=48)
    assert copy.draft_n is not None and copy.draft_n > 0
    assert copy.draft_n_accepted is not None and 0 < copy.draft_n_accepted <= copy.draft_n


def test_draft_model_speculation(
    engine: Engine, smollm2_path: Path, start_server: StartServer
) -> None:
    # SmolLM2 drafting for itself: the cheapest draft-simple pair with a shared vocabulary.
    profile = replace(get_profile("smol-dflash-nospec"), spec_type="draft-simple", draft_max=4)
    port = free_port()
    argv = build_argv(
        engine.binary, profile, probe(engine.binary), smollm2_path, smollm2_path, port=port
    )
    server = start_server(argv, port)
    assert get_slots(server.url)[0]["speculative"] is True
    timings = ask(server.url, COUNT, max_tokens=16)
    assert timings.draft_n is not None and timings.draft_n > 0
    assert timings.draft_n_accepted is not None and timings.draft_n_accepted > 0


def test_random_dflash_drafter_runs_the_dflash_path(
    engine: Engine, smollm2_path: Path, dflash_drafter_path: Path, start_server: StartServer
) -> None:
    port = free_port()
    argv = build_argv(
        engine.binary,
        get_profile("smol-dflash"),
        probe(engine.binary),
        smollm2_path,
        dflash_drafter_path,
        port=port,
    )
    assert argv[argv.index("--spec-type") + 1] == "draft-dflash"
    server = start_server(argv, port)
    assert get_slots(server.url)[0]["speculative"] is True
    timings = ask(server.url, COUNT, max_tokens=8)
    # Random weights draft every step and never agree with the target.
    assert timings.draft_n is not None and timings.draft_n > 0
    assert timings.draft_n_accepted == 0
    assert get_metrics(server.url)["spec_decode_num_draft_tokens_total"] >= timings.draft_n

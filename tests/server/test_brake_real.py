"""The speculation brake on a real llama-server with a DFlash drafter whose drafts never pay."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.model.endpoint import OpenAIChatModel, StreamEnd
from server.brake import OFF_FIELDS, Brake, probe_pair
from server.client import Timings, complete
from server.engine.build import Engine, engine_record
from server.engine.dialect import probe
from server.launch.addresses import free_port
from server.launch.llama_argv import build_argv
from server.profiles.catalog import get_profile
from tests.conftest import serve

CODE = [
    {"role": "user", "content": "Write a Python function that sorts a list of numbers."},
]


@pytest.fixture(scope="module")
def dflash_url(
    engine: Engine, smollm2_path: Path, dflash_drafter_path: Path, tmp_path_factory: Any
) -> Iterator[str]:
    """smol-dflash as `server up` launches it: SmolLM2 and a random-weight DFlash drafter."""
    port = free_port()
    profile = get_profile("smol-dflash")
    argv = build_argv(
        engine.binary, profile, probe(engine.binary), smollm2_path, dflash_drafter_path, port=port
    )
    yield from serve(argv, tmp_path_factory.mktemp("brake") / "server.log", port)


def timings(url: str, **fields: Any) -> Timings:
    body = {"messages": CODE, "max_tokens": 24, "temperature": 0.0, **fields}
    return Timings.from_json(complete(url, body)["timings"])


def test_the_engine_beecode_builds_is_patched(engine: Engine) -> None:
    assert engine_record(engine)["patches"] == ["request-draft-off"]


def test_a_request_can_turn_drafting_off(dflash_url: str) -> None:
    drafted = timings(dflash_url)
    assert drafted.draft_n is not None and drafted.draft_n > 0
    assert drafted.draft_n_accepted == 0  # random weights
    plain = timings(dflash_url, **OFF_FIELDS)
    assert not plain.draft_n
    assert plain.predicted_n == drafted.predicted_n


def test_a_probe_pair_pauses_a_drafter_that_never_pays(dflash_url: str) -> None:
    brake = Brake()
    body = {"messages": CODE, "temperature": 0.0}
    assert probe_pair(brake, dflash_url, body, None).seconds > 0
    state = brake.state()
    assert brake.held and state.paused
    assert state.ratio is not None and state.ratio < 1
    assert brake.fields() == OFF_FIELDS


async def test_the_agent_s_requests_go_through_the_brake(dflash_url: str) -> None:
    model = OpenAIChatModel(dflash_url, temperature=0.0, max_tokens=32, brake=Brake())
    for _ in range(2):
        chunks = [chunk async for chunk in model.stream(CODE, [])]
        end = chunks[-1]
        assert isinstance(end, StreamEnd)
        note = end.stats.drafting
        assert note is not None and note.paused and note.held
        assert not end.stats.draft_n  # nothing drafted: the request went with drafting off
        assert note.describe().startswith("drafting paused: ")

"""The map in the agent: the system prompt's last block, byte-identical across turns, rebuilt
where the prompt cache is lost anyway (compaction), priced in /context; sent to a real server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent.config import Config
from agent.events import Event
from agent.faces.contract import ConnectRequest
from agent.model.endpoint import OpenAIChatModel
from agent.runtime.assemble import assemble_agent, tool_registry
from agent.runtime.served import serve_model
from agent.sessions.store import Session
from tests.agent.repomap.kit import make_repo
from tests.factory import ENDPOINT, ScriptedRuntime, answer, make_agent


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"BEECODE_{name}_DIR", str(tmp_path / name.lower()))
    return make_repo(tmp_path / "repo")


def systems(requests: list[Any]) -> list[str]:
    return [r.messages[0]["content"] for r in requests]


def quiet(_event: Event) -> None:
    pass


async def test_the_map_holds_across_turns_and_follows_a_change_at_compaction(repo: Path) -> None:
    replies = [answer(f"reply {n}") for n in range(4)] + [answer("summary"), answer("last")]
    agent = make_agent(repo, replies)
    model = agent.model
    await agent.run_turn("look around", quiet)
    (repo / "app" / "extra.py").write_text("def brand_new_helper():\n    pass\n")
    for n in range(3):  # a change mid-conversation keeps the prefix
        await agent.run_turn(f"and again {n}", quiet)
    assert (await agent.compact()).startswith("Compacted")  # read in anew: the map follows
    await agent.run_turn("once more", quiet)
    sent = systems(model.requests)  # type: ignore[attr-defined]
    first, after = sent[0], sent[-1]
    assert "# Repository map" in first and "app/core.py:" in first
    assert len(set(sent[:5])) == 1  # not a byte moved before compaction, though a file changed
    assert after != first and "def brand_new_helper():" in after
    assert after.startswith(agent._system)  # the rules and the rest first, the map last


async def test_a_resumed_session_starts_from_the_map_it_sent(repo: Path) -> None:
    agent = make_agent(repo, [answer("one")])
    await agent.run_turn("open app/use.py please", quiet)
    sent = agent.messages[0]["content"]
    again = make_agent(repo, [answer("two")], resume=agent.session.id)
    assert again.messages[0]["content"] == sent  # before any turn: the saved cache matches
    assert again.repo_map is not None and again.repo_map.focus == {"app/use.py"}
    await again.run_turn("go on", quiet)
    assert again.model.requests[0].messages[0]["content"] == sent  # type: ignore[attr-defined]


async def test_no_map_when_its_budget_is_zero(repo: Path) -> None:
    config = Config(endpoint=ENDPOINT, tool_mode="native", repo_map_tokens=0)
    agent = make_agent(repo, [answer("one")], config)
    await agent.run_turn("hi", quiet)
    assert "Repository map" not in agent.model.requests[0].messages[0]["content"]  # type: ignore[attr-defined]


def test_context_shows_what_the_map_costs(repo: Path) -> None:
    runtime = ScriptedRuntime(repo, [answer("done")])
    try:
        core = runtime.connect(ConnectRequest(), lambda key, line: None)
        asyncio.run(core.agent.run_turn("hello", quiet))
        assert core.context is not None
        lines = core.context()
    finally:
        runtime.shutdown()
    mapped = [line for line in lines if line.strip().startswith("repository map:")]
    assert mapped, lines
    tokens = int(mapped[0].split(":")[1].split("tokens")[0].replace(",", ""))
    assert 0 < tokens <= 1024


@pytest.mark.real_server
async def test_the_first_request_to_a_real_server_carries_the_map(
    tiny_server: str, repo: Path
) -> None:
    config = Config(temperature=0.0, max_tokens=16, tool_mode="native")
    served = serve_model(tiny_server, config)
    agent = assemble_agent(repo, config, served, Session.create(repo), tool_registry(None))
    sent: list[list[dict[str, Any]]] = []
    assert isinstance(agent.model, OpenAIChatModel)
    original = agent.model.stream

    def spy(messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        sent.append([dict(m) for m in messages])
        return original(messages, *args, **kwargs)

    agent.model.stream = spy  # type: ignore[method-assign]
    finished = await agent.run_turn("Say hi.", quiet)
    assert finished.stop_reason != "error", finished.final_text
    first = sent[0][0]["content"]
    assert "# Repository map" in first and "app/core.py:" in first
    # The server read it: the first request's prompt is longer than the map alone.
    map_tokens = served.counter.count_text(agent.repo_map.text if agent.repo_map else "")
    assert finished.stats and finished.stats[0].prompt_n + finished.stats[0].cache_n > map_tokens

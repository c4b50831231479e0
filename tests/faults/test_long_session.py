"""A long session through the real loop: 300 turns and over 2,500 tool calls (reads, searches,
writes, edits, bash, checkpoints). Memory and open file descriptors stay under stated bounds
once it is warm: RSS grows by less than GROWTH_MIB over the last 250 turns, fds by none."""

from __future__ import annotations

import os
import resource
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agent.model.endpoint import FREE, CallPiece, ModelChunk, ReplyFormat, StreamEnd, TextPiece
from agent.model.scripted import stats
from tests.scripted import agent_on

TURNS, WARM = 300, 50
GROWTH_MIB = 64  # the history itself grows (no compaction here): ~2,500 results, a few MiB
READS = [
    ("read", '{"path": "notes.md"}'),
    ("grep", '{"pattern": "line"}'),
    ("glob", '{"pattern": "*.md"}'),
    ("ls", "{}"),
    ("read", '{"path": "notes.md", "offset": 2, "limit": 3}'),
    ("todo", '{"todos": [{"text": "keep going", "status": "pending"}]}'),
    ("git", '{"action": "status"}'),
    ("grep", '{"pattern": "nothing-matches-this"}'),
]


class LongScript:
    """A model that answers forever without recording requests (the scripted model keeps a
    copy of every request, which would be the test's own leak)."""

    def __init__(self) -> None:
        self.turn = 0
        self.step = 0

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        reply_format: ReplyFormat = FREE,
    ) -> AsyncIterator[ModelChunk]:
        self.step += 1
        if messages[-1]["role"] == "user":  # a new turn: this step's calls
            n = self.turn = self.turn + 1
            calls = list(READS)
            if n % 5 == 0:  # a change every fifth turn: a checkpoint, a write, an edit, bash
                calls += [
                    ("write", f'{{"path": "made/{n}.txt", "content": "turn {n}\\n"}}'),
                    ("edit", f'{{"path": "made/{n}.txt", "old": "turn", "new": "Turn"}}'),
                    ("bash", '{"command": "wc -l notes.md"}'),
                ]
            for index, (name, args) in enumerate(calls):
                yield CallPiece(index, f"c{n}_{index}", name, args)
            yield StreamEnd("tool_calls", stats())
        else:
            yield TextPiece(f"turn {self.turn} done")
            yield StreamEnd("stop", stats())


def rss_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / (1 << 20)


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_memory_and_fds_stay_bounded_over_a_long_session(ws: Path) -> None:
    (ws / "notes.md").write_text("".join(f"line {n}\n" for n in range(200)))
    model = LongScript()
    agent = agent_on(model, ws, system="s", max_steps=5)
    calls = 0
    try:
        for turn in range(1, TURNS + 1):
            finished = await agent.run_turn(f"turn {turn}", lambda _e: None)
            assert finished.stop_reason == "done", finished.final_text
            calls += len(READS) + (3 if turn % 5 == 0 else 0)
            if turn == WARM:
                rss, fds = rss_mib(), open_fds()
        grown, fds_after = rss_mib() - rss, open_fds()
    finally:
        agent.close()
    assert calls > 2500
    assert sum(1 for m in agent.messages if m["role"] == "tool") == calls
    assert grown < GROWTH_MIB, f"RSS grew {grown:.1f} MiB over {TURNS - WARM} turns"
    assert fds_after <= fds, f"{fds_after - fds} file descriptors leaked"
    assert len(list((ws / "made").iterdir())) == TURNS // 5
    print(
        f"long session: {calls} calls, RSS +{grown:.1f} MiB after warm-up, fds {fds}->{fds_after}"
    )

"""Prompt-cache reuse across a compaction, on the real `tiny` server.

A resumed session of a few thousand tokens (file reads, as an agent's history is) takes one turn,
which leaves its prompt in the server's slot; then the agent compacts (``Agent.compact``, the
code `/compact` and a full context run) and takes another turn. Per request: prompt tokens the
server processed (prompt_n) and served from its cache (cache_n), for the summary request(s) and
for the first request after the compaction. The script uses only APIs older than the fix, so
the same file run from an export of an earlier commit measures the code before it.

    python benchmarks/compaction_reuse.py [--no-host-cache] [--out FILE]

--no-host-cache launches `tiny` with `--cache-ram 0`, as the GPU profiles run: no host-memory
prompt cache to bring back a prompt the slot lost.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from _common import ROOT, header, main_guard, save, scratch

FILES = ("agent/loop/agent.py", "server/client.py", "agent/sessions/store.py", "tools/tool.py")


class Recorder:
    """The agent's model, keeping each request's figures from its stream's end."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.stats: list[Any] = []

    async def stream(self, messages: Any, tools: Any, **kw: Any) -> AsyncIterator[Any]:
        async for chunk in self.inner.stream(messages, tools, **kw):
            if hasattr(chunk, "stats") and hasattr(chunk, "finish_reason"):
                self.stats.append(chunk.stats)
            yield chunk


@contextlib.contextmanager
def tiny_server(log: Path, host_cache: bool) -> Iterator[str]:
    """`tiny` as `server up` launches it (``--cache-ram 0`` added without the host cache)."""
    from server.launch.addresses import free_port
    from server.launch.plan import prepare_launch
    from server.process.managed import ManagedServer

    plan = prepare_launch("tiny", port=free_port())
    argv = plan.argv if host_cache else [*plan.argv, "--cache-ram", "0"]
    server = ManagedServer(argv, log_path=log, host=plan.host, port=plan.port, restart=False)
    server.start(timeout_s=300)
    try:
        yield server.url
    finally:
        server.stop()


def figures(stats: Any) -> dict[str, int]:
    return {"prompt_n": stats.prompt_n, "cache_n": stats.cache_n}


def run(out: Path | None, host_cache: bool) -> int:
    info = header("compaction_reuse")
    with scratch("compact") as folder:
        os.environ["BEECODE_DATA_DIR"] = str(folder / "data")
        os.environ["BEECODE_CONFIG_DIR"] = str(folder / "config")
        from agent.config import Config
        from agent.runtime.assemble import build_agent
        from agent.sessions.store import Session

        workspace = folder / "ws"
        workspace.mkdir()
        session = Session.create(workspace)
        for i, name in enumerate(FILES):
            call = {"id": f"c{i}", "type": "function"}
            call["function"] = {"name": "read_file", "arguments": f'{{"path": "{name}"}}'}
            body = (ROOT / name).read_text(encoding="utf-8")[:1500]
            session.append_message({"role": "user", "content": f"Read {name}."})
            session.append_message({"role": "assistant", "content": "", "tool_calls": [call]})
            session.append_message({"role": "tool", "tool_call_id": f"c{i}", "content": body})
            session.append_message({"role": "assistant", "content": f"Read {name}."})
        with tiny_server(folder / "server.log", host_cache) as url:
            config = Config(
                endpoint=url, temperature=0.0, max_tokens=48, max_steps=1, permission_mode="plan"
            )
            agent = build_agent(workspace, config, resume=session.id)
            recorder = Recorder(agent.model)
            agent.model = recorder  # type: ignore[assignment]

            async def session_with_a_compaction() -> tuple[str, int, int]:
                await agent.run_turn("Which file did I ask for first?", lambda _e: None)
                first = len(recorder.stats)
                note = await agent.compact()
                compacted = len(recorder.stats)
                await agent.run_turn("And which one last?", lambda _e: None)
                return note, first, compacted

            note, first, compacted = asyncio.run(session_with_a_compaction())
    stats = recorder.stats
    before, summaries, after = stats[first - 1], stats[first:compacted], stats[compacted]
    print(note)
    print(f"turn before: processed {before.prompt_n}, from cache {before.cache_n}")
    for i, s in enumerate(summaries):
        print(f"summary request {i + 1}: processed {s.prompt_n}, from cache {s.cache_n}")
    total = after.prompt_n + after.cache_n
    share = after.cache_n / total if total else 0.0
    print(f"first request after: processed {after.prompt_n}, from cache {after.cache_n}")
    print(f"reuse after the compaction: {share:.1%}")
    result = {
        **info,
        "host_cache": host_cache,
        "before": figures(before),
        "summaries": [figures(s) for s in summaries],
        "after": figures(after),
        "after_reuse": share,
    }
    save(result, out)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-host-cache", action="store_true", help="--cache-ram 0")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    return main_guard(lambda: run(args.out, not args.no_host_cache))


if __name__ == "__main__":
    raise SystemExit(main())

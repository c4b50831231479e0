"""The main conversation's prompt cache across a sub-agent, on the real `tiny` server.

A resumed session of several turns (file reads, as an agent's history is) takes one turn, so
its prompt is in the server's one slot; then the explore sub-agent runs on a task holding
files to read (its prompt takes the slot), then the main agent takes another turn. For that
turn's first request: prompt tokens the server processed (prompt_n), served from its cache
(cache_n), and the seconds it spent on them (prefill), with the main slot saved and restored
around the sub-agent (``agent.subagents.slots``) and without. `tiny` runs with
``--cache-ram 0``, as the GPU profiles do: no host-memory cache brings a lost prompt back.
Its 8K context holds the sub-agent's read at ~4K tokens, not the 10K a big model's would.

    python benchmarks/subagent_cache.py [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _common import ROOT, header, main_guard, save, scratch

HISTORY = ("agent/sessions/store.py", "tools/tool.py", "agent/checkpoints/store.py")
READ = ("server/client.py", "agent/loop/calls.py", "agent/model/stats.py")
READ_CHARS = 5000  # of each file in the sub-agent's task: ~4K tokens in all


@contextlib.contextmanager
def tiny_server(log: Path, slots: Path) -> Iterator[str]:
    from server.launch.addresses import free_port
    from server.launch.plan import prepare_launch
    from server.process.managed import ManagedServer

    plan = prepare_launch("tiny", port=free_port())
    argv = [*plan.argv, "--cache-ram", "0"]
    if "--slot-save-path" not in argv:
        argv += ["--slot-save-path", str(slots)]
    server = ManagedServer(argv, log_path=log, host=plan.host, port=plan.port, restart=False)
    server.start(timeout_s=300)
    try:
        yield server.url
    finally:
        server.stop()


def history(workspace: Path) -> str:
    from agent.sessions.store import Session

    session = Session.create(workspace)
    for i, name in enumerate(HISTORY):
        call = {"id": f"c{i}", "type": "function"}
        call["function"] = {"name": "read", "arguments": f'{{"path": "{name}"}}'}
        body = (ROOT / name).read_text(encoding="utf-8")[:2500]
        session.append_message({"role": "user", "content": f"Read {name}."})
        session.append_message({"role": "assistant", "content": "", "tool_calls": [call]})
        session.append_message({"role": "tool", "tool_call_id": f"c{i}", "content": body})
        session.append_message({"role": "assistant", "content": f"Read {name}."})
    return session.id


def one_run(folder: Path, url: str, keep: bool) -> dict[str, Any]:
    from agent.config import Config
    from agent.events import Event, StepStats, SubagentFinished
    from agent.runtime.assemble import build_agent
    from agent.subagents.slots import SlotGuard
    from agent.subagents.tool import TaskTool

    workspace = folder / ("ws-keep" if keep else "ws-plain")
    workspace.mkdir()
    config = Config(
        endpoint=url, temperature=0.0, max_tokens=32, max_steps=1, permission_mode="plan"
    )
    agent = build_agent(workspace, config, resume=history(workspace))
    tool = agent.registry.get("task")
    assert isinstance(tool, TaskTool) and tool.spawner is not None
    slot_dir = folder / "slots"
    tool.spawner.guard = SlotGuard(url, None, 1, slot_dir) if keep else None
    files = "\n\n".join(
        f"{name}:\n{(ROOT / name).read_text(encoding='utf-8')[:READ_CHARS]}" for name in READ
    )
    events: list[Event] = []

    async def session() -> None:
        await agent.run_turn("Which file did I ask for first?", lambda _e: None)
        explore = tool.definitions.agents["explore"]
        task = f"Which of these files defines a class?\n\n{files}"
        await tool.spawner.run(explore, "classes", task, events.append)  # type: ignore[union-attr]
        await agent.run_turn("And which one last?", events.append)

    asyncio.run(session())
    agent.close()
    [sub] = [e for e in events if isinstance(e, SubagentFinished)]
    after = next(e.stats for e in events if isinstance(e, StepStats))
    prefill = after.prompt_n / after.prompt_tok_s if after.prompt_tok_s else None
    return {
        "restore": keep,
        "subagent_prompt_n": sub.stats[0].prompt_n if sub.stats else None,
        "after": {"prompt_n": after.prompt_n, "cache_n": after.cache_n, "prefill_s": prefill},
    }


def run(out: Path | None) -> int:
    info = header("subagent_cache")
    with scratch("subagent") as folder:
        for name in ("data", "config", "slots"):
            (folder / name).mkdir()
        os.environ["BEECODE_DATA_DIR"] = str(folder / "data")
        os.environ["BEECODE_CONFIG_DIR"] = str(folder / "config")
        with tiny_server(folder / "server.log", folder / "slots") as url:
            runs = [one_run(folder, url, keep) for keep in (False, True)]
    for r in runs:
        a = r["after"]
        shown = f"{a['prefill_s']:.2f} s" if a["prefill_s"] is not None else "n/a"
        print(
            f"restore {'on ' if r['restore'] else 'off'}: sub-agent read {r['subagent_prompt_n']} "
            f"tokens; next main request: {a['prompt_n']} new, {a['cache_n']} cached, "
            f"prefill {shown}"
        )
    save({**info, "runs": runs}, out)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    return main_guard(lambda: run(args.out))


if __name__ == "__main__":
    raise SystemExit(main())

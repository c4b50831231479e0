"""Resuming a long session after the server restarted: with the saved slot restored, and without.

A session of several thousand tokens (file reads and their contents, as an agent's history is)
is read in by the `tiny` server, which beecode's slot cache then saves (agent.runtime.slot_cache,
the code a user's quit or /resume runs). The server is restarted twice and the session's next
request sent each time: once read in from nothing, once after restoring the saved slot. Figures
per side: prompt tokens the server processed, its prefill seconds (timings.prompt_ms, plus the
restore's own time on the restore side), and the request's wall time. Target: >= 10x less prefill
with the restore.

    python benchmarks/resume_restore.py [--files 6] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from _common import ROOT, fmt_ratio, header, main_guard, ratio, save, scratch

# Sources of the checkout, read as an agent reads them: the history's tool results.
FILES = (
    "agent/loop/agent.py",
    "agent/runtime/slot_cache.py",
    "server/client.py",
    "agent/sessions/store.py",
    "agent/loop/compaction.py",
    "server/launch/llama_argv.py",
)
SYSTEM = "You are beecode, a coding agent. Answer briefly."


def history(n_files: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Read the files I name, one by one, and remember them."},
    ]
    for i, name in enumerate(FILES[:n_files]):
        call = {"id": f"c{i}", "type": "function"}
        call["function"] = {"name": "read_file", "arguments": f'{{"path": "{name}"}}'}
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": read(name)})
    messages.append({"role": "assistant", "content": "I have read them."})
    return messages


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")[:2000]


def ask(url: str, messages: list[dict[str, Any]]) -> dict[str, float]:
    from server.client import chat

    start = time.monotonic()
    _, timings = chat(url, messages, max_tokens=8, temperature=0, timeout_s=3600)
    wall = time.monotonic() - start
    return {
        "prompt_n": timings.prompt_n,
        "cache_n": timings.cache_n,
        "prefill_s": timings.prompt_ms / 1000,
        "wall_s": wall,
    }


def run(n_files: int, out: Path | None, profile: str = "tiny") -> int:
    info = header("resume_restore")
    with scratch("resume") as folder:
        os.environ["BEECODE_STATE_DIR"] = str(folder / "state")  # the slot files go here
        from agent.runtime.slot_cache import SlotCache, prefix_of
        from server.launch.addresses import free_port
        from server.launch.plan import prepare_launch
        from server.process.managed import ManagedServer

        plan = prepare_launch(profile, port=free_port())
        slot_dir = Path(plan.argv[plan.argv.index("--slot-save-path") + 1])
        past = history(n_files)
        resumed = [*past, {"role": "user", "content": "Which file defines SlotCache?"}]

        def restarted() -> ManagedServer:
            server = ManagedServer(
                plan.argv, log_path=folder / "server.log", host=plan.host, port=plan.port
            )
            server.start(timeout_s=300)
            return server

        server = restarted()
        cold = ask(server.url, past)  # the session as it was before it was left
        cache = SlotCache(server.url, slot_dir, max_mb=8192, max_days=1)
        saved_line = cache.save("bench", prefix_of(profile, past, []))
        server.stop()
        print(f"session: {cold['prompt_n']:.0f} prompt tokens; {saved_line}")

        server = restarted()
        without = ask(server.url, resumed)
        server.stop()

        server = restarted()
        cache = SlotCache(server.url, slot_dir, max_mb=8192, max_days=1)
        t0 = time.monotonic()
        n_restored, restored_line = cache.restore("bench", profile, resumed, [])
        restore_s = time.monotonic() - t0
        with_restore = ask(server.url, resumed)
        server.stop()
    with_restore["restore_s"] = restore_s
    with_restore["n_restored"] = n_restored
    print(restored_line)
    for name, side in (("without restore", without), ("with restore", with_restore)):
        extra = f", restore {restore_s:.2f} s" if side is with_restore else ""
        print(
            f"{name:16} processed {side['prompt_n']:6.0f} tokens (cache {side['cache_n']:.0f}), "
            f"prefill {side['prefill_s']:7.2f} s{extra}, request {side['wall_s']:7.2f} s"
        )
    tokens = ratio(without["prompt_n"], with_restore["prompt_n"])
    seconds = ratio(without["prefill_s"], with_restore["prefill_s"] + restore_s)
    print(f"less prefill with restore: tokens {fmt_ratio(tokens)}x, seconds {fmt_ratio(seconds)}x")
    result = {
        **info,
        "session_tokens": cold["prompt_n"],
        "without": without,
        "with": with_restore,
        "tokens_ratio": tokens,
        "seconds_ratio": seconds,
    }
    save(result, out)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=len(FILES), help="file reads in the history")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--profile", default="tiny", help="the server's profile (default tiny)")
    args = parser.parse_args()
    return main_guard(lambda: run(args.files, args.out, args.profile))


if __name__ == "__main__":
    raise SystemExit(main())

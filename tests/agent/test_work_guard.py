"""Never make it worse: a write replacing what the turn wrote with text copied from a tool result
or the prompt is refused; other rewrites go through."""

from __future__ import annotations

from pathlib import Path

from agent.model.scripted import call, text
from tests.agent.loop_kit import Face, make_agent, results

WRITE = call("write", {"path": "notes.txt", "content": "buy milk\n"})
CHECK = call("bash", {"command": "cat notes.txt"})


async def test_work_is_not_overwritten_with_a_tool_results_text(ws: Path) -> None:
    copied = call("write", {"path": "notes.txt", "content": "created notes.txt (1 line)"})
    agent, _ = make_agent(ws, [WRITE, CHECK, copied, text("notes.txt holds buy milk.")])
    finished = await agent.run_turn("create notes.txt containing buy milk", Face())

    assert (ws / "notes.txt").read_text() == "buy milk\n"
    assert results(agent)[-1].startswith("Error: not written: notes.txt already holds what this")
    assert "copied from a tool result" in results(agent)[-1]
    # beecode refused it to keep the work: not a failed step of the task.
    assert (finished.stop_reason, finished.facts.failed) == ("done", [])
    assert finished.facts.created == ["notes.txt"]


async def test_work_is_not_overwritten_with_the_prompt(ws: Path) -> None:
    prompt = "create notes.txt containing buy milk"
    read = call("read", {"path": "notes.txt"})
    copied = call("write", {"path": "notes.txt", "content": prompt})
    agent, _ = make_agent(ws, [WRITE, read, copied, text("Done.")])
    await agent.run_turn(prompt, Face())

    assert (ws / "notes.txt").read_text() == "buy milk\n"
    assert "copied from the prompt" in results(agent)[-1]


async def test_work_not_yet_checked_is_kept_too(ws: Path) -> None:
    # Seen on the 0.5B model: the write's own result, written over it the step after.
    copied = call("write", {"path": "notes.txt", "content": "created notes.txt (1 line)\n"})
    agent, _ = make_agent(ws, [WRITE, copied, text("Done.")])
    await agent.run_turn("create notes.txt containing buy milk", Face())

    assert (ws / "notes.txt").read_text() == "buy milk\n"
    assert "copied from a tool result" in results(agent)[-1]


async def test_other_files_and_asked_for_values_may_be_written(ws: Path) -> None:
    other = call("write", {"path": "a.txt", "content": "created notes.txt (1 line)"})
    asked = call("write", {"path": "notes.txt", "content": "bye\n"})
    agent, _ = make_agent(ws, [WRITE, other, CHECK, asked, text("Done.")])
    await agent.run_turn("write buy milk to notes.txt, cat it, then change it to bye", Face())

    assert (ws / "a.txt").read_text() == "created notes.txt (1 line)"
    assert (ws / "notes.txt").read_text() == "bye\n"
    assert not any(r.startswith("Error") for r in results(agent))

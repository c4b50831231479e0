"""The loop's guards, for every model: invalid calls in a row, the same call with the same
result, and existing files read before they are changed."""

from __future__ import annotations

from pathlib import Path

from agent.events import Notice
from agent.loop.repeats import DONE_NOTE, REPEAT_NOTE
from agent.model.scripted import call, text
from tests.agent.loop_kit import Face, assert_valid_history, make_agent, results


async def test_three_invalid_calls_in_a_row_stop_the_turn(ws: Path) -> None:
    agent, model = make_agent(
        ws, [call("nope", {}), call("write", "{"), call("read", {}), text("unused")]
    )
    finished = await agent.run_turn("x", Face())

    assert finished.stop_reason == "tool_failures"
    assert "3 invalid tool calls in a row" in finished.final_text
    assert "missing required field 'path'" in finished.final_text
    assert len(model.replies) == 1
    assert_valid_history(agent.messages)


async def test_a_valid_call_between_invalid_ones_restarts_the_count(ws: Path) -> None:
    bad = [call("read", {}), call("write", "{"), call("edit", {}), call("nope", {})]
    agent, model = make_agent(ws, [*bad[:2], call("ls", {}), *bad[2:], text("gave up")])
    finished = await agent.run_turn("x", Face())
    # It answered, but after an edit that failed and was never tried again.
    assert (finished.stop_reason, finished.final_text) == ("failed", "gave up")
    assert not model.replies


async def test_loop_guard_stops_the_same_failing_call(ws: Path) -> None:
    missing = call("read", {"path": "missing.txt"})
    agent, model = make_agent(ws, [missing, call("ls", {}), missing, missing, text("unused")])
    face = Face()
    finished = await agent.run_turn("read it", face)

    assert finished.stop_reason == "tool_failures"
    assert finished.final_text.startswith(
        "Stopped: the same read call gave the same result 3 times"
    )
    assert len(model.replies) == 1
    assert face.of(Notice) == [Notice(finished.final_text, "warning")]
    said = results(agent)
    # The second time, the model is told it repeats itself.
    assert not said[0].endswith(REPEAT_NOTE) and said[2].endswith(REPEAT_NOTE)


async def test_loop_guard_stops_a_model_repeating_a_successful_call(ws: Path) -> None:
    same = call("bash", {"command": "echo hi > a.txt"})
    agent, _ = make_agent(ws, [same, same, same, text("unused")])
    finished = await agent.run_turn("write a.txt", Face())
    assert finished.stop_reason == "tool_failures"
    assert "the same bash call gave the same result 3 times" in finished.final_text
    said = results(agent)
    assert not said[0].endswith(DONE_NOTE) and said[1].endswith(DONE_NOTE)


async def test_existing_files_are_read_before_they_are_changed(ws: Path) -> None:
    (ws / "config.ini").write_text("port=8080\n")
    change = {"path": "config.ini", "old": "8080", "new": "9090"}
    agent, _ = make_agent(
        ws,
        [
            call("edit", change),
            call("read", {"path": "config.ini"}),
            call("edit", change),
            text("ok"),
        ],
    )
    await agent.run_turn("change the port", Face())
    said = results(agent)
    assert said[0].startswith("Error: config.ini exists and you have not read it. It holds:\n")
    assert "port=8080" in said[0]
    assert (ws / "config.ini").read_text() == "port=9090\n"


async def test_a_refusal_that_shows_the_file_counts_as_reading_it(ws: Path) -> None:
    (ws / "config.ini").write_text("port=8080\n")
    change = {"path": "config.ini", "old": "8080", "new": "9090"}
    agent, _ = make_agent(ws, [call("edit", change), call("edit", change), text("ok")])
    await agent.run_turn("change the port", Face())
    said = results(agent)
    assert said[0].startswith("Error: config.ini exists and you have not read it. It holds:\n")
    assert not said[1].startswith("Error")
    assert (ws / "config.ini").read_text() == "port=9090\n"


async def test_an_unread_big_file_must_be_read_first(ws: Path) -> None:
    (ws / "big.txt").write_text("x" * 9000)
    write = {"path": "big.txt", "content": "y"}
    agent, _ = make_agent(ws, [call("write", write), text("ok")])
    await agent.run_turn("replace big.txt", Face())
    said = results(agent)
    assert said[0].startswith("Error: big.txt exists and you have not read it; read it first")
    assert (ws / "big.txt").read_text() == "x" * 9000

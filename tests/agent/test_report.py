"""A small model's closing words: sent back once with their doubts (not the words), never where
they were beecode's own."""

from __future__ import annotations

from pathlib import Path

from agent.model.reply import Reply
from agent.model.scripted import text
from agent.steps.report import REPORT_PROMPT, WITHHELD, Report
from tests.agent.loop_kit import Face, make_agent, step


def test_an_answer_goes_back_once_a_turn_with_at_most_three_doubts_not_itself() -> None:
    report = Report()
    report.words(Reply(text="x" * 1000))
    again = report.doubted("x" * 1000, ["one", "two", "three", "four"])
    said = "That does not match what happened: one; two; three."
    assert again == f"[{said}] {REPORT_PROMPT}"
    assert report.prompt() == again and report.prompt() == REPORT_PROMPT  # for one request
    assert report.doubted("y", ["one"]) == ""  # once a turn
    report.start_turn()
    assert report.doubted("y", ["one"]) != ""


def test_beecodes_words_as_the_answer_are_not_sent_back() -> None:
    report = Report()
    report.last_result = "hi\n[exit code 0]"
    assert report.words(Reply(text="  ")) == "Last result: hi\n[exit code 0]"
    assert report.doubted("Last result: hi", ["the answer says x"]) == ""


async def test_no_answer_is_sent_back_from_the_last_step(ws: Path) -> None:
    """Sent back at the step limit, the turn would stop with no answer and no facts shown."""
    said = step("answer", text="Created README.md.")
    agent, model = make_agent(ws, [text(said)], tool_mode="constrained", max_steps=1)
    finished = await agent.run_turn("say hi", Face())
    assert (finished.stop_reason, finished.final_text) == ("done", WITHHELD)
    assert len(model.requests) == 1

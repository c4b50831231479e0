"""A small model's closing words: asked for once more where the facts contradict them (never
with an account of what was wrong), never where they were beecode's own."""

from __future__ import annotations

from pathlib import Path

from agent.model.reply import Reply
from agent.model.scripted import text
from agent.small.report import REPORT_PROMPT, WITHHELD, Report
from tests.agent.loop_kit import Face, make_agent, step


def test_an_answer_is_asked_for_again_once_a_turn_with_no_account_to_copy() -> None:
    report = Report()
    report.words(Reply(text="x" * 1000))
    again = report.doubted()
    assert again == REPORT_PROMPT  # sent an account of what was wrong, the model copied it
    assert report.prompt() == again and report.prompt() == REPORT_PROMPT  # for one request
    assert report.doubted() == ""  # once a turn
    report.start_turn()
    assert report.doubted() != ""


def test_beecodes_words_as_the_answer_are_not_sent_back() -> None:
    report = Report()
    report.last_result = "hi\n[exit code 0]"
    assert report.words(Reply(text="  ")) == "Last result: hi\n[exit code 0]"
    assert report.doubted() == ""


def test_the_report_request_copied_back_is_no_answer() -> None:
    """Asked for its answer, a small model may send the request back as it."""
    report = Report()
    report.last_result = "first\nthird"
    copied = Reply(text=f"Sure. {REPORT_PROMPT.upper()}")
    assert report.words(copied) == "Last result: first\nthird"
    assert report.words(Reply(text="Removed the line.")) == "Removed the line."


async def test_no_answer_is_sent_back_from_the_last_step(ws: Path) -> None:
    """Sent back at the step limit, the turn would stop with no answer and no facts shown."""
    said = step("answer", text="Created README.md.")
    agent, model = make_agent(ws, [text(said)], tool_mode="constrained", max_steps=1)
    finished = await agent.run_turn("say hi", Face())
    assert (finished.stop_reason, finished.final_text) == ("done", WITHHELD)
    assert len(model.requests) == 1

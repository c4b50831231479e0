"""A small model's closing words, checked before they are shown (``agent.small.steps``).

Empty words, or this request's own copied back, leave the last result as the answer, in
beecode's words. Words the turn's facts contradict (``agent.small.checks``) are asked for once
more, and a second answer the facts still contradict is left out: the facts, which every face
shows under it, are the answer. The request again carries no account of what was wrong: sent
"[That does not match what happened: ...]", the 0.5B model answered with beecode's words in all
34 doubted answers of three task-set runs, most of them that request's.
"""

from __future__ import annotations

import dataclasses
import re

from agent.events import EventSink, TextDelta
from agent.facts import TurnFacts
from agent.model.reply import Reply

# Short on purpose: a small model copies the words of this request into its answer.
REPORT_PROMPT = "Now answer me in one or two sentences."
WITHHELD = "The model's report is left out: beecode's facts below contradict it."


class Report:
    def __init__(self) -> None:
        self.start_turn()

    def start_turn(self) -> None:
        self.last_result = ""  # the last result the model saw: the answer when it says nothing
        self._said_nothing = False  # the closing words were empty: the answer is beecode's
        self._sent_back = False  # an answer was asked for again this turn
        self._again = ""  # the request that asks again, for the next report step

    def prompt(self) -> str:
        """The report step's request: the plain one, or the one that asks again."""
        again, self._again = self._again, ""
        return again or REPORT_PROMPT

    def words(self, reply: Reply) -> str:
        """The closing words; the last result where they are none, or this request's own."""
        said = reply.text.strip()
        self._said_nothing = not said or _flat(REPORT_PROMPT) in _flat(said)
        return f"Last result: {self.last_result}" if self._said_nothing else said

    def doubted(self) -> str:
        """The request that asks for the answer again, once a turn; "" for none (the answer is
        beecode's words, or was asked for again already)."""
        if self._said_nothing or self._sent_back:
            return ""
        self._sent_back = True
        self._again = REPORT_PROMPT
        return self._again

    def kept(self, answer: str, facts: TurnFacts, emit: EventSink) -> tuple[str, TurnFacts]:
        """A step object is never streamed, so the answer is shown only now, once checked: a
        report the facts contradict is left out (kept in ``withheld``)."""
        if self._said_nothing:  # beecode's words, not the model's: no report to check
            return answer, facts
        if facts.doubts:
            facts = dataclasses.replace(facts, withheld=answer)
            answer = WITHHELD
        emit(TextDelta(answer))
        return answer, facts


def _flat(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))

"""A small model's closing words, checked before they are shown (``agent.steps.constrained``).

Empty words leave the last result as the answer, in beecode's words. Words the turn's facts
contradict go back to the model once, with what contradicts them: asked "what is the third line
of notes.txt?", the 0.5B model answered "3" (the line's number in the read it was shown); told
that line 3 holds 'third', it answers from the file. A second answer the facts still contradict
is left out, and the facts, which every face shows under it, are the answer.
"""

from __future__ import annotations

import dataclasses

from agent.loop.events import EventSink, TextDelta
from agent.loop.facts import TurnFacts
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
        self._sent_back = False  # an answer went back with its doubts this turn
        self._again = ""  # the request that sends it back, for the next report step

    def prompt(self) -> str:
        """The report step's request: the answer sent back with its doubts, or the plain one."""
        again, self._again = self._again, ""
        return again or REPORT_PROMPT

    def words(self, reply: Reply) -> str:
        self._said_nothing = not reply.text.strip()
        return reply.text.strip() or f"Last result: {self.last_result}"

    def doubted(self, answer: str, doubts: list[str]) -> str:
        """The request that sends a contradicted answer back, once a turn; "" for none (the
        answer is beecode's words, or was sent back already)."""
        if self._said_nothing or self._sent_back:
            return ""
        self._sent_back = True
        # Not the answer itself: quoted back, it was sent again word for word.
        self._again = f"[That does not match what happened: {'; '.join(doubts[:3])}.]"
        self._again += f" {REPORT_PROMPT}"
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

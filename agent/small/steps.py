"""The step policy for small models: every reply one JSON step object, and the habits kept for it.

A model too small to call tools reliably gets each reply held to the step schema
(``agent.small.schema``), the tools of each step chosen by what the turn has seen so far
(``agent.small.habits``): tools bash stands in for are left out, tools the plan mode refuses and
tools the turn watch banned are not offered. An answer right after a change, or while a call
keeps failing, is set aside once for a step that must call a tool. When the model repeats a
finished call (the same call, a small variation of it three times, or beecode's words about a
change fed back as input), the turn ends with a closing step that can only be the answer; its
instruction goes with that one request only, so the history shows the last result, then the
answer. The answer is shown once checked against the turn's facts (``agent.small.report``).
After a step that may have finished the task (its calls worked, one a change or a command that
exited 0) and needs no check first, the next request is the choice "done" or "continue": done
leads to the report, continue to a step that must call a tool. Where beecode can name the step
to send (the line a syntax error names, the edit the task's value needs, the file the task
makes in a folder), the next step is held to it by the grammar. What a rule may know of the
task is its intent (``agent.small.intent``), read once per turn, in no language's words. Only
rules that spoke on the tuning half of ``benchmarks/fresh_set.py`` are kept.
"""

from __future__ import annotations

from typing import Any, Literal

from agent.context.prompt import with_guide
from agent.events import EventSink
from agent.facts import TurnFacts
from agent.loop.policy import Step, StepPolicy, Surroundings
from agent.loop.record import FactsRecorder
from agent.loop.repeats import DONE_NOTE, failed
from agent.model.reply import Call, Reply, make_call
from agent.small.checks import report_doubts
from agent.small.guard import WorkGuard, copied_words
from agent.small.habits import SmallLedger, TurnWatch
from agent.small.intent import Intent, read_intent
from agent.small.near_repeats import NearRepeats
from agent.small.redirects import clobbering_redirect
from agent.small.report import Report
from agent.small.schema import (
    ANSWER,
    CHOICE_FORMAT,
    CHOICE_PROMPT,
    STEP_GUIDE,
    STEP_LEFT_OUT,
    parse_step,
    step_format,
    step_tools,
    with_args,
)
from agent.small.syntax_line import syntax_line, syntax_note
from agent.small.task_end import TaskEnd
from tools.tool import ToolResult

# What a step may call: either, a tool, the answer; or no call: the done-or-continue choice,
# and the report it leads to (the answer only, asked for in words).
Offer = Literal["all", "tools", "answer", "choice", "report"]


class ConstrainedSteps(StepPolicy):
    """Each reply one step object; the offers, set-asides and report of the module docstring."""

    notice = "Constrained steps this session: each reply is held to one JSON step."

    def __init__(self, notice: str = "") -> None:
        super().__init__()
        self.notice = notice or self.notice
        self.watch: TurnWatch = TurnWatch()
        self._offer: Offer = "all"
        self._asked: Offer = "all"  # what the latest step offered
        self._finished_step = False  # the latest step's calls may have finished the task
        self._report = Report()  # the closing words, checked (agent.small.report)
        self._repeats = NearRepeats()
        self._said: list[str] = []  # beecode's notes and questions to the model this turn
        self._pin: tuple[str, dict[str, str]] | None = None  # the next step's tool, held args
        self._asked_ids: set[str] = set()  # calls refused as a question to the model

    def bind(self, around: Surroundings) -> None:
        self.registry, self.permissions = around.registry, around.permissions
        self.ledger = SmallLedger(around.reads)
        self.start_turn("")

    def system(self, prompt: str) -> str:
        return with_guide(prompt, STEP_GUIDE)

    def start_turn(self, task: str) -> None:
        workspace = self.ledger.workspace
        self.intent: Intent = read_intent(task, workspace)
        self.watch, self.ledger.intent = TurnWatch(), self.intent
        self._guard, self._report = WorkGuard(workspace, task), Report()
        self._end = TaskEnd(self.intent, workspace)
        self._offer, self._said = "all", []

    def step(self, tools: list[dict[str, Any]]) -> Step:
        offer, self._offer = self._offer, "all"
        self._asked = offer
        if offer == "choice":  # the tools described as ever: the prompt prefix stays the same
            described = step_tools([t for t in tools if _name(t) not in STEP_LEFT_OUT])
            return Step(described, CHOICE_FORMAT, CHOICE_PROMPT)
        if offer == "report":
            return self._step(tools, "answer", self._report.prompt())
        return self._step(tools, offer)

    def _step(self, tools: list[dict[str, Any]], offer: Offer, instruction: str = "") -> Step:
        """The template describes every step tool whatever the offer, so the prompt prefix
        stays the same from step to step; only the schema narrows."""
        described = step_tools([t for t in tools if _name(t) not in STEP_LEFT_OUT])
        banned = self.watch.take_banned() | self._refused_by_mode()
        offered = set()
        if offer != "answer":
            offered = {_name(t) for t in described if _name(t) not in banned | {ANSWER}}
        if offer != "tools" or not offered:  # every tool banned: an empty schema is no grammar
            offered.add(ANSWER)
        callable_now = [t for t in described if _name(t) in offered]
        if self._pin:  # the grammar holds the arguments; the prompt prefix stays the same
            tool, held = self._pin
            callable_now = [with_args(t, held) if _name(t) == tool else t for t in callable_now]
        self._pin = None
        return Step(described, step_format(callable_now), instruction or None)

    def _refused_by_mode(self) -> set[str]:
        """Tools plan mode refuses whatever their arguments: offered a write there, a small
        model tries it again and again."""
        if self.permissions.mode != "plan":
            return set()
        registry = self.registry
        return {n for n in registry.names() if (t := registry.get(n)) and t.kind({}) != "read"}

    def _next(self, tool: str, held: dict[str, str]) -> None:
        """The next step calls ``tool`` with these arguments held by its grammar."""
        self.watch.banned = frozenset(self.registry.names()) - {tool}
        self._offer, self._pin = "tools", (tool, held)

    def read(self, reply: Reply) -> None:
        if reply.calls:  # the server sent native calls after all
            return
        if self._asked == "choice":  # read in answer(): the choice is never an answer
            return
        step = parse_step(reply.text)
        if isinstance(step, str):
            reply.text = step
        else:
            reply.text, reply.calls = "", [make_call(step, reply.finish_reason)]

    def refusal(self, call: Call) -> str | None:
        ledger = self.ledger
        if kept := self._guard.refusal(call) or copied_words(call, self._said, self.intent.task):
            return kept  # the turn's work, kept; no file made of words (agent.small.guard)
        # These quote the file, in the step to send: its words are not beecode's to refuse.
        quoted = ledger.numbered_copy(call) or ledger.clobbering_write(call)
        why = quoted or clobbering_redirect(call, ledger) or ledger.folder_write(call)
        if why:
            self._asked_ids.add(call.id)
        if why and not quoted:
            self._said.append(why)
        if ledger.pin:  # the step beecode gave: told which file, the 0.5B model wrote another
            self._next(*ledger.pin)
            ledger.pin = None
        return why

    def note(self, call: Call, kind: str | None, result: ToolResult) -> str:
        self._guard.observe(call, result)
        note = super().note(call, kind, result)
        if call.id in self._asked_ids and call.name in self.watch.failing:
            # A question asked twice is no failure waiting for a fix: the tool sits out a step.
            self.watch.failing -= {call.name}
            self.watch.banned |= {call.name}
        if note == DONE_NOTE:
            note = ""  # the turn ends with the report now; a small model would copy the note
        bad = failed(result)
        done_kind = kind == "edit" or result.meta.get("exit_code") == 0
        left, held = self._end.left() if done_kind and not bad else ("", None)
        if left:  # the end the task's intent names is not met yet (task_end)
            note += left
            self._offer, done_kind = "tools", False
            self.watch.settled = False  # a repeat of the step that changed nothing: not done
            if held:
                self._next(*held)
        workspace = self.ledger.workspace
        broken = syntax_line(result.output, workspace) if bad or kind == "edit" else None
        if broken:
            path, old, error = broken
            note += syntax_note(path, old, error)
            self._next("edit", {"path": path, "old": old})
            done_kind = False
        self._said.append(note)
        self._report.last_result = result.output + note
        self.watch.settled |= self._repeats.seen(call, kind, result.output, bad)
        self._finished_step = (self._finished_step or done_kind) and not bad
        return note

    def after_calls(self) -> None:
        """A step whose calls all worked, one a change or a command that exited 0, may have
        finished the task: the next step is the choice, unless the answer would wait anyway
        (an unchecked change is run or read first)."""
        if self._finished_step and not self.watch.answer_waits() and not self.watch.settled:
            self._offer = "choice"
        self._finished_step = False

    def answer(self, reply: Reply, emit: EventSink) -> str | None:
        if self._asked == "choice":  # done: the report; not done (or unreadable): a tool step
            self._offer = "report" if reply.text.strip() == '"done"' else "tools"
            return None
        if self._asked == "report":
            return self.closing_words(reply, emit)
        if self.watch.answer_waits():
            # The answer waits for a run, compile or read of the change. It is not kept, and
            # no request says so: a small model copies such words.
            self.watch.set_answer_aside()
            self._offer = "tools"
            return None
        return reply.text

    def closing(self, tools: list[dict[str, Any]]) -> Step | None:
        """The report, once a finished call was repeated: a step that can only be the answer
        (asked in plain words, a small model often answered with one more step object)."""
        return self._step(tools, "answer", self._report.prompt()) if self.watch.settled else None

    def closing_words(self, reply: Reply, emit: EventSink) -> str:
        return self._report.words(reply)  # nothing said: the last result, in beecode's words

    def doubts(self, answer: str, facts: TurnFacts, record: FactsRecorder) -> list[str]:
        """The report read against the facts (``agent.small.checks``)."""
        workspace, task = record.workspace, self.intent.task
        return report_doubts(answer, facts, record.outputs, record.told, workspace, task)

    def doubted(self, answer: str, doubts: list[str]) -> str:
        if again := self._report.doubted():
            self._offer = "report"  # the next step: the answer again
        return again

    def kept_answer(self, answer: str, facts: TurnFacts, emit: EventSink) -> tuple[str, TurnFacts]:
        return self._report.kept(answer, facts, emit)


def _name(tool: dict[str, Any]) -> str:
    return str(tool["function"]["name"])

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
leads to the report, continue to a step that must call a tool. Where beecode names the file the
task asks for (a missing one, the file inside a folder), the next step may only write, its path
held by the grammar; so is the edit of a line beecode can name (``task_values``,
``syntax_line``). A step that changed nothing in a task that asks for a change, left a command
to run again or the task's end unmet (``task_end``), is not taken for the task's end.
"""

from __future__ import annotations

from typing import Any, Literal

from agent.context.prompt import with_guide
from agent.events import EventSink
from agent.facts import TurnFacts
from agent.loop.policy import Step, StepPolicy, Surroundings
from agent.loop.record import FactsRecorder
from agent.loop.repeats import DONE_NOTE
from agent.model.reply import Call, Reply, make_call
from agent.small.claims import doubts as claim_doubts
from agent.small.guard import WorkGuard
from agent.small.habits import FILE_TOOLS, SmallLedger, TurnWatch
from agent.small.near_repeats import NearRepeats
from agent.small.redirects import appends, redirect_refusal, repeated_append
from agent.small.report import Report
from agent.small.schema import (
    ANSWER,
    CHOICE_FORMAT,
    CHOICE_PROMPT,
    STEP_GUIDE,
    STEP_LEFT_OUT,
    parse_step,
    step_format,
    step_text,
    step_tools,
    with_args,
)
from agent.small.syntax_line import breaking_edit, syntax_line, syntax_note
from agent.small.task_change import (
    NOT_DONE_NOTE,
    AskedAfter,
    asks_change,
    refused_by_mode,
    workspace_state,
)
from agent.small.task_end import TaskEnd
from agent.small.task_test import TaskTest
from agent.small.task_values import renamed_file, value_edit_refusal
from agent.small.task_words import missing_note, words_refusal
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
        self._appended: set[str] = set()  # commands that appended with >> and worked
        self._rerun: tuple[str, str] | None = None  # a missing file, the command that needed it
        self._before: tuple[object, ...] | None = None  # the workspace as the turn found it
        self._wrote = False  # a write or edit of this turn worked
        self._unchanged_aside = False  # an answer was set aside: the task's change not made

    def bind(self, around: Surroundings) -> None:
        self.registry, self.permissions = around.registry, around.permissions
        self.ledger = SmallLedger(around.reads)
        workspace = around.workspace
        self._after = AskedAfter("", workspace)  # a question after the change
        self._test, self._end = TaskTest("", workspace), TaskEnd("", workspace)
        self._guard = WorkGuard(workspace, "")

    def system(self, prompt: str) -> str:
        return with_guide(prompt, STEP_GUIDE)

    def start_turn(self, task: str) -> None:
        self.watch = TurnWatch()
        self.ledger.task = task
        self._guard = WorkGuard(self.ledger.workspace, task)
        self._offer, self._said, self._rerun, self._appended = "all", [], None, set()
        self._report.start_turn()
        self._before, self._wrote, self._unchanged_aside = None, False, False

    def step(self, tools: list[dict[str, Any]]) -> Step:
        if self._before is None:  # before the turn's first call: the task is known by now
            self._before = workspace_state(self.ledger.task, self.ledger.workspace)
            self._after = AskedAfter(self.ledger.task, self.ledger.workspace)
            self._test = TaskTest(self.ledger.task, self.ledger.workspace)
            self._end = TaskEnd(self.ledger.task, self.ledger.workspace)
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
        banned = self.watch.take_banned() | refused_by_mode(
            self.ledger.task, self.permissions.mode, self.registry
        )
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

    def _next(self, tool: str, held: dict[str, str]) -> None:
        """The next step calls ``tool`` with these arguments held by its grammar."""
        self.watch.banned = frozenset(self.registry.names()) - {tool}
        self._offer, self._pin = "tools", (tool, held)

    def _changed(self) -> bool:
        """Whether the turn changed anything, where its task asks for a change."""
        task, workspace = self.ledger.task, self.ledger.workspace
        if self._wrote or not asks_change(task):
            return True
        return workspace_state(task, workspace) != self._before

    def _run_again(self) -> str:
        """The command that failed for lack of a file, to run now the file exists: told to
        create a.txt, then copy it, the 0.5B model ran the copy first, wrote a.txt, and chose
        done."""
        assert self._rerun is not None
        (missing, command), self._rerun = self._rerun, None
        self.watch.banned, self._offer = FILE_TOOLS, "tools"
        step = step_text("bash", {"command": command})
        return f"\n[{missing} exists now: run again the command that needed it: {step}]"

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
        if kept := self._guard.refusal(call):
            return kept  # the turn's work, kept (agent.small.guard)
        ledger = self.ledger
        undone = self._end.undoes(call)  # the task's end, met now, would be undone: refused
        value = None if undone else renamed_file(call, ledger.task, ledger.workspace)
        clobbering = undone or (None if value else ledger.clobbering_write(call))
        if value:
            self._next("bash", value[1])  # the mv the task asks for
        elif (value := value_edit_refusal(call, ledger.task, ledger.workspace)) and not clobbering:
            self._next("edit", value[1])  # the line that holds the task's old value
        elif not clobbering and (tested := self._test.refusal(call)):
            value = tested[0], {}
            self._next(*tested[1])  # the run of the task's test, or the edit of the file to fix
        why = clobbering or (
            (value and value[0])
            or breaking_edit(call, ledger.workspace)
            or words_refusal(call, ledger, self._said)
            or redirect_refusal(call, ledger)
            or repeated_append(call, self._appended, ledger.task)
            or ledger.test_change(call)
            or ledger.copy_write(call)
            or ledger.folder_write(call)
        )
        if why:
            self._asked_ids.add(call.id)
        if why and not clobbering:  # the clobbering question quotes the file, to be copied
            self._said.append(why)
        if ledger.pin:  # the step beecode gave: told which file, the 0.5B model wrote another
            self._next(*ledger.pin)
            ledger.pin = None
        return why

    def note(self, call: Call, kind: str | None, result: ToolResult) -> str:
        self._guard.observe(call, result)
        self.ledger.observe(call, result)
        note = super().note(call, kind, result)
        if call.id in self._asked_ids and call.name in self.watch.failing:
            # A question asked twice is no failure waiting for a fix: the tool sits out a step.
            self.watch.failing -= {call.name}
            self.watch.banned |= {call.name}
        if note == DONE_NOTE:
            note = ""  # the turn ends with the report now; a small model would copy the note
        failed = result.is_error or result.meta.get("exit_code") not in (None, 0)
        done_kind = kind == "edit" or result.meta.get("exit_code") == 0
        left, held = self._end.left() if done_kind and not failed else ("", None)
        if left:  # the end the task names is not met yet (task_end): not the task's end
            note += left
            self._offer, done_kind = "tools", False
            self.watch.settled = False  # a repeat of the step that changed nothing: not done
            if held:
                self._next(*held)
        if failed and call.name == "bash" and (missing := self.ledger.missing(result.output)):
            note += missing_note(missing, self.ledger.task)
            self._rerun = (missing, str((call.arguments or {}).get("command", "")))
            if missing in self.ledger.task:  # a file the task asks for: the next step writes it
                self._next("write", {"path": missing})
        elif not failed and self._rerun and (self.ledger.workspace / self._rerun[0]).exists():
            note += self._run_again()
            done_kind = False
        self._wrote |= kind == "edit" and not failed
        if not failed and (appended := appends(call)):
            self._appended.add(appended)
        if test := self._test.note(call, kind, failed):
            note, done_kind = note + test[0], False
            self._next("bash", test[1])
        if done_kind and not failed and self._after.waits(call):
            self._offer, done_kind = "tools", False  # the step that finds the answer is next
            if named := self._after.named_file():  # told "take the next step", it appended again
                self._next("read", {"path": named})
        if done_kind and not failed and not self._changed():
            note += NOT_DONE_NOTE  # a run that exited 0 is not the change the task asks for
            self._offer, done_kind = "tools", False
            self.watch.banned |= {call.name}  # told once, the 0.5B model ran the same again
        if (failed or kind == "edit") and (
            broken := syntax_line(result.output, self.ledger.workspace)
        ):
            path, old, error = broken
            note += syntax_note(path, old, error)
            self._next("edit", {"path": path, "old": old})
            done_kind = False
        self._said.append(note)
        self._report.last_result = result.output + note
        self.watch.settled |= self._repeats.seen(call, kind, result.output, failed)
        self._finished_step = (self._finished_step or done_kind) and not failed
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
        if not self._unchanged_aside and not self._changed():
            # Once: told to fix calc.py, the 0.5B model ran it and answered, the fix untried.
            self._unchanged_aside, self._offer = True, "tools"
            return None
        return reply.text

    def closing(self, tools: list[dict[str, Any]]) -> Step | None:
        """The report, once a finished call was repeated: a step that can only be the answer
        (asked in plain words, a small model often answered with one more step object)."""
        return self._step(tools, "answer", self._report.prompt()) if self.watch.settled else None

    def closing_words(self, reply: Reply, emit: EventSink) -> str:
        return self._report.words(reply)  # nothing said: the last result, in beecode's words

    def doubts(self, answer: str, facts: TurnFacts, record: FactsRecorder) -> list[str]:
        """The English claims a small model's report makes, read against the facts."""
        return claim_doubts(
            answer,
            facts,
            record.outputs,
            record.told,
            record.workspace,
            self.ledger.task,
            record.earlier,
        )

    def doubted(self, answer: str, doubts: list[str]) -> str:
        if again := self._report.doubted(answer, doubts):
            self._offer = "report"  # the next step: the answer again, its doubts in its request
        return again

    def kept_answer(self, answer: str, facts: TurnFacts, emit: EventSink) -> tuple[str, TurnFacts]:
        return self._report.kept(answer, facts, emit)


def _name(tool: dict[str, Any]) -> str:
    return str(tool["function"]["name"])

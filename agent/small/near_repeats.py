"""Near-repeats: a model with nothing left to do, which the same-call guard misses.

A 0.5B model that has finished keeps calling: echo "hi", echo 'hi', echo hi (each a small
variation of the last, all of which worked), or beecode's own words about a change fed back as
input (echo "wrote notes.txt (1 line)"). Either means the turn is to end with the report.
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher

from agent.model.reply import Call

# Three calls in a row, each this similar to the last (difflib's ratio), end the turn with the
# report: echo loops and rewrites of the same file one character apart, all of which worked.
VARIATION, NEAR_REPEATS = 0.8, 2


class NearRepeats:
    """One turn's calls, watched for variations of the last and for beecode's words fed back."""

    def __init__(self) -> None:
        self._last_call = ""  # the latest call that worked, as its name and arguments
        self._variations = 0  # calls in a row that worked, each a small variation of the last
        self._change_said = ""  # the latest result of a change, in beecode's words

    def seen(self, call: Call, kind: str | None, output: str, failed: bool) -> bool:
        """Record a call's result; whether it makes a near-repeat. A variation of a failed call
        is a retry, not a repeat."""
        fed_back = _fed_back(self._change_said, call)
        self._change_said = output if kind == "edit" and not failed else ""
        said = f"{call.name} {json.dumps(call.arguments, sort_keys=True)}"
        if failed:
            said = ""  # the next call is a retry; the count so far stands
        elif _small_variation(self._last_call, said):
            self._variations += 1
        else:
            self._variations = 0
        self._last_call = said
        return fed_back or self._variations >= NEAR_REPEATS


def _fed_back(said: str, call: Call) -> bool:
    """Whether the call's arguments hold ``said`` (its first line, if long enough to tell)."""
    line = said.strip().split("\n", 1)[0]
    values = (call.arguments or {}).values()
    return len(line) >= 12 and any(isinstance(v, str) and line in v for v in values)


def _small_variation(last: str, call: str) -> bool:
    """Whether ``call`` (a tool name and its arguments) is ``last`` changed a little."""
    same_tool = last.split(" ", 1)[0] == call.split(" ", 1)[0]
    return same_tool and last != call and SequenceMatcher(None, last, call).ratio() >= VARIATION

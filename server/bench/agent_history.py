"""The `agent` suite: continuations after a long, growing tool-using history.

Fresh prompts flatter speculation: in an agent session the context fills with file reads and
command output, and a drafter that does well on a short prompt can fall off as it grows (users
report DFlash acceptance from 70% to 16% past 100K tokens of tool results). Each prompt here is
one coding task and the history an agent builds for it: reads of beecode's own bench sources in
slices, `grep -n` over them and `wc -l`, as OpenAI tool calls and tool results; the model then
writes the next step. The prompts differ only in how much history precedes that step, so
acceptance can be read against context length. The history is made from the installed sources,
so it is the same for every mode and repetition (and changes only with the code).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# Read in this order, relative to the server package; the long suite gets to the later ones.
SOURCES = (
    "bench/stats.py", "bench/report.py", "bench/requests.py", "bench/modes.py",
    "bench/command.py", "bench/prompts.py", "launch/fit.py", "launch/llama_argv.py",
    "launch/plan.py", "engine/dialect.py", "engine/build.py", "client.py",
)  # fmt: skip
SLICE_LINES = 60
AGENT_MAX_TOKENS = 256
AGENT_TEMPERATURE = 0.0
SYSTEM = (
    "You are a coding agent working in a Python repository. Use the tools to read files and "
    "run commands; when you change code, write the complete new version of what you change."
)
TASK = (
    "The bench report should show each prompt's context length (prompt tokens, cached "
    "included) beside its acceptance. Read the code under server/bench/, then write the "
    "changed functions in full."
)


_DEFINITION = re.compile(r"\s*(def|class) ")


def _tool_steps(folder: Path) -> list[tuple[str, dict[str, Any], str]]:
    """(tool, arguments, output) in the order an agent would make them: the layout first,
    then each file in slices, with a grep for its definitions before reading it."""
    files = [(f"server/{name}", (folder / name).read_text(encoding="utf-8")) for name in SOURCES]
    counts = "\n".join(f"{text.count(chr(10)):>5} {path}" for path, text in files)
    steps: list[tuple[str, dict[str, Any], str]] = [
        ("bash", {"command": "wc -l server/bench/*.py server/launch/*.py"}, counts),
    ]
    for path, text in files:
        lines = text.splitlines()
        defs = [f"{i}:{line}" for i, line in enumerate(lines, 1) if _DEFINITION.match(line)]
        grep = {"command": f"grep -n -E '^\\s*(def|class) ' {path}"}
        steps.append(("bash", grep, "\n".join(defs)))
        for start in range(0, len(lines), SLICE_LINES):
            chunk = lines[start : start + SLICE_LINES]
            numbered = "\n".join(f"{start + i + 1:>4}  {line}" for i, line in enumerate(chunk))
            arguments = {"path": path, "offset": start + 1, "limit": SLICE_LINES}
            steps.append(("read_file", arguments, numbered))
    return steps


def history(char_budget: int, folder: Path | None = None) -> tuple[dict[str, Any], ...]:
    """System prompt, task, then as many whole tool steps as fit in char_budget characters of
    tool output; the last message is a tool result, so the model writes the next step."""
    folder = folder or Path(__file__).parent.parent
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
    ]
    used = 0
    for i, (tool, arguments, output) in enumerate(_tool_steps(folder)):
        if used + len(output) > char_budget and used:
            break
        used += len(output)
        call_id = f"call_{i}"
        call = {"name": tool, "arguments": json.dumps(arguments)}
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call_id, "type": "function", "function": call}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
    return tuple(messages)

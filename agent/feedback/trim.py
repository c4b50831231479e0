"""What the model is shown of a failed check: the lines that matter, bounded.

A lint's output is cut to the lines about the files the turn changed; a test run's to its
failure section (pytest's FAILURES/ERRORS and short summary, cargo's and go's failures) and the
tail; both to at most ``MAX_LINES`` lines and ``MAX_CHARS`` characters (head and tail kept).
"""

from __future__ import annotations

import re

from tools.output import cap_text

MAX_LINES = 200
MAX_CHARS = 12_000
# Where a runner's account of its failures starts (the first one found wins).
_FAILURES = re.compile(
    r"^(=+ (FAILURES|ERRORS|short test summary info) =+"  # pytest
    r"|--- FAIL|FAIL\t"  # go test
    r"|failures:$"  # cargo test
    r"|npm (ERR!|error))",
    re.MULTILINE,
)


def lint_output(output: str, files: list[str]) -> str:
    """The lines naming a changed file (with the line after each, where tools put the detail),
    else the whole output; bounded."""
    lines = output.splitlines()
    keep: set[int] = set()
    for n, line in enumerate(lines):
        if any(f in line for f in files):
            keep.update((n, n + 1))
    picked = [lines[n] for n in sorted(keep) if n < len(lines)] if keep else lines
    return bounded(picked)


def test_output(output: str) -> str:
    """From the failure section on (the whole output when there is none), bounded."""
    found = _FAILURES.search(output)
    return bounded(output[found.start() if found else 0 :].splitlines())


def bounded(lines: list[str]) -> str:
    if len(lines) > MAX_LINES:
        head = MAX_LINES // 4
        left_out = len(lines) - MAX_LINES
        lines = [*lines[:head], f"[{left_out} lines left out]", *lines[head - MAX_LINES :]]
    return cap_text("\n".join(lines), MAX_CHARS)

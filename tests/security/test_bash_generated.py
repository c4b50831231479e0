"""Hypothesis over the bash matcher: a generated line that runs a denied program is never allowed.

The allow list includes ``bash(*)``, which matches any judged command, so the only things that keep
a line from running are the deny rule and the judge's "cannot be judged". CASES lines per run.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.config import Mode
from agent.permissions.rules import Permissions
from agent.permissions.shell import judge

CASES = 3000
DENIED = "rm"
# Ways of writing the program name that bash still runs as rm.
NAMES = [
    "rm",
    "'rm'",
    '"rm"',
    "r\\m",
    "'r'm",
    "r''m",
    '"r"m',
    "$'rm'",
    "$'\\x72m'",
    "$'\\162\\155'",
    "/bin/rm",
    "/usr/bin/rm",
    "./../../bin/rm",
    "{rm,}",
    "r{m,}",
    "$(echo rm)",
    "`echo rm`",
    "${X:-rm}",
    "$CMD",
]
WRAPPERS = [
    "",
    "command ",
    "builtin ",
    "env ",
    "env -i ",
    "env A=1 ",
    "exec ",
    "nohup ",
    "time ",
    "time -p ",
    "nice ",
    "nice -n 5 ",
    "timeout 5 ",
    "timeout -k 1 5 ",
    "sudo ",
    "sudo -u root ",
    "xargs ",
    "xargs -0 ",
    "xargs -I{} ",
    "stdbuf -o0 ",
    "setsid ",
    "busybox ",
    "/usr/bin/env ",
    "A=1 ",
    "command -p ",
]
ARGS = ["", " -rf /", " -rf .", " x", " -- -x", "${IFS}-rf${IFS}/", " $'-rf' /"]
OTHERS = ["ls", "echo hi", "git status", "cat a.txt", "true"]
JOINS = ["; ", " && ", " || ", " | ", " & ", "\n"]


@st.composite
def lines_running_rm(draw: st.DrawFn) -> str:
    core = draw(st.sampled_from(WRAPPERS)) + draw(st.sampled_from(NAMES))
    core += draw(st.sampled_from(ARGS))
    shape = draw(st.integers(0, 7))
    if shape == 1:
        core = "{ " + core + "; }"
    elif shape == 2:
        core = "(" + core + ")"
    elif shape == 3:
        core = "bash -c " + _quoted(core)
    elif shape == 4:
        core = "eval " + _quoted(core)
    elif shape == 5:
        core = "if true; then " + core + "; fi"
    elif shape == 6:
        core = "find . -exec " + core + " {} \\;"
    elif shape == 7:
        core = "echo $(" + core + ")"
    before = draw(st.lists(st.sampled_from(OTHERS), max_size=2))
    after = draw(st.lists(st.sampled_from(OTHERS), max_size=2))
    join = draw(st.sampled_from(JOINS))
    return join.join([*before, core, *after])


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


RUNNING_MODES: list[Mode] = ["ask", "auto-edit", "yolo"]


def permissions(tmp_path: Path, mode: Mode) -> Permissions:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    allow = ["bash(*)", "bash(ls*)", "bash(echo*)", "bash(git status*)"]
    return Permissions(mode, allow, [f"bash({DENIED}*)"], workspace, [])


@settings(
    max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(line=lines_running_rm(), mode=st.sampled_from(RUNNING_MODES))
def test_generated_lines_running_a_denied_program_never_run(
    tmp_path: Path, line: str, mode: Mode
) -> None:
    decision = permissions(tmp_path, mode).check("bash", "execute", line, [])
    assert decision.verdict != "allow", (line, decision.reason)


@settings(
    max_examples=CASES // 3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(line=lines_running_rm())
def test_allow_always_never_writes_a_rule_that_allows_them(tmp_path: Path, line: str) -> None:
    """Rules kept for a line allow rm only as that line ran it, or any rm after a bare "rm"."""
    p = permissions(tmp_path, "ask")
    p.allow, p.deny, p._bash_deny = [], [], []
    p.allow_always("bash", line)
    approved = judge(line, p.workspace).commands
    for command in (
        f"{DENIED} -rf /",
        f"/bin/{DENIED} -rf /",
        f"ls; {DENIED} -rf /",
        f"{DENIED} x",
    ):
        if p.check("bash", "execute", command, []).verdict == "allow":
            ran = judge(command, p.workspace).commands
            assert [DENIED] in approved or all(c in approved for c in ran), (line, p.allow)

"""The `beecode` command line as a user types it, in real subprocesses: --help lists the
subcommands, and a number flag out of its range is a usage error (exit 2) naming the range."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.headless_run import beecode

pytestmark = pytest.mark.usefixtures("beecode_dirs")


def test_help_lists_every_subcommand_with_a_line_each(workspace: Path) -> None:
    done = beecode("--help", cwd=workspace)
    assert done.returncode == 0
    listed = done.stdout.split("\ncommands")[1].split("\n\n")[0].splitlines()[1:]
    names = [line.split()[0] for line in listed]
    assert names == ["sessions", "undo", "mcp", "skills", "server", "doctor", "bench"]
    assert all(len(line.split()) > 2 for line in listed)  # each with what it does
    for name in names:  # each one listed is one beecode runs (its --help or itself), no usage error
        assert beecode(name, "--help", cwd=workspace).returncode == 0, name


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["server", "plan", "--profile", "tiny", "--vram", "-3"],
            "--vram: -3 is not within 1..1024",
        ),
        (["server", "plan", "--vram", "100000"], "--vram: 100000 is not within 1..1024"),
        (["server", "plan", "--vram", "nan"], "--vram: nan is not within"),
        (["server", "up", "--port", "0"], "--port: 0 is not within 1..65535"),
        (["server", "logs", "-n", "-1"], "-n: -1 is not within"),
        (["-p", "x", "--max-steps", "0"], "--max-steps/--max-turns: 0 is not within"),
        (["undo", "-2"], "N: -2 is not within"),
        (["bench", "--reps", "0"], "--reps: 0 is not within"),
        (["bench", "--temperature", "-1"], "--temperature: -1 is not within 0..2"),
        (["bench", "--draft-max", "x"], "--draft-max: not a number: 'x'"),
    ],
)
def test_a_number_flag_out_of_range_is_a_usage_error(
    workspace: Path, argv: list[str], says: str
) -> None:
    done = beecode(*argv, cwd=workspace)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr.splitlines()[-1]

"""The real thing in a real terminal: tmux runs `beecode --endpoint URL` against the `tiny`
server, a prompt is typed, and the model's answer (as its session saved it) and the throughput
line are read from the pane."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent.sessions.store import Session, list_sessions

pytestmark = [
    pytest.mark.real_server,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

BEECODE = Path(sys.executable).parent / "beecode"
PROMPT = "Reply with one word: pineapple"
# A finished turn's line: server figures (no "~" estimate), drafts (tiny speculates; the brake may
# have paused them), prompt cache.
THROUGHPUT = re.compile(
    r"^ *\d+\.\d tok/s.*(draft \d+/\d+|0 drafted|drafting paused)"
    r".*prompt \S+ cached / \S+ new",
    re.M,
)


class Tmux:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "beecode")

    def wait_for(self, what: str, check: Callable[[str], object], timeout_s: float) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"no {what} on screen after {timeout_s:.0f}s:\n{self.screen()}")


@pytest.fixture
def tmux(tiny_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tmux]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    variables = [f"BEECODE_{d}_DIR={tmp_path / d.lower()}" for d in ("DATA", "STATE", "CONFIG")]
    for variable in variables:  # this process reads the session beecode saves there
        monkeypatch.setenv(*variable.split("=", 1))
    (tmp_path / "config").mkdir(exist_ok=True)  # the TUI tests' autouse fixture made it
    # Greedy decoding: the same reply every run, so the test does not depend on the draw.
    (tmp_path / "config" / "config.toml").write_text("temperature = 0.0\n")
    # COLUMNS/LINES from the calling shell would override the pane size (shutil reads them).
    command = f"env -u COLUMNS -u LINES {BEECODE} --endpoint {tiny_server} --permission-mode plan"
    session = Tmux(f"beecode-test-{os.getpid()}")
    environment = [arg for v in [*variables, "TERM=xterm-256color"] for arg in ("-e", v)]
    session(
        "new-session",
        "-d",
        "-s",
        "beecode",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        str(workspace),
        *environment,
        command,
    )
    session("set-option", "-t", "beecode", "remain-on-exit", "on")
    session("resize-window", "-t", "beecode", "-x", "120", "-y", "40")
    try:
        yield session
    finally:
        subprocess.run(["tmux", "-L", session.socket, "kill-server"], capture_output=True)


def test_a_turn_in_a_real_terminal(tmux: Tmux) -> None:
    tmux.wait_for(
        "connected status line", lambda s: "mode plan" in s and "server external" in s, 60
    )
    tmux("send-keys", "-t", "beecode", "-l", PROMPT)
    tmux("send-keys", "-t", "beecode", "Enter")
    screen = tmux.wait_for(
        "finished turn", lambda s: THROUGHPUT.search(s) and "working" not in s, 300
    )
    print(screen)  # shown with -s: what the user saw
    lines = screen.splitlines()
    asked = next((i for i, line in enumerate(lines) if PROMPT in line), None)
    assert asked is not None, f"the prompt is not on screen:\n{screen}"
    [session] = list_sessions()
    saved = Session.open(session.id).messages()
    assert saved[0] == {"role": "user", "content": PROMPT}
    answer = saved[-1]
    assert answer["role"] == "assistant" and not answer.get("tool_calls"), saved
    # The answer's words, in order, below the prompt (Markdown may restyle, wrap or drop marks).
    words = re.findall(r"\w+", answer["content"])
    below = " ".join(re.findall(r"\w+", "\n".join(lines[asked + 1 :])))
    assert words and " ".join(words) in below, f"{answer['content']!r} is not on screen:\n{screen}"
    tmux("send-keys", "-t", "beecode", "C-c")
    tmux("send-keys", "-t", "beecode", "C-c")
    tmux.wait_for(
        "exit", lambda _s: tmux("display", "-p", "-t", "beecode", "#{pane_dead}").strip() == "1", 20
    )

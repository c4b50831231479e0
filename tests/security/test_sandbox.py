"""The optional bubblewrap sandbox: no network, the workspace writable, the rest read-only; and no
silent fallback when bwrap is missing. Skipped where bwrap is not installed."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config import load_config
from tools.bash import BashTool
from tools.tool import ToolContext

from .jobs import job_output

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside").mkdir()
    return ToolContext(workspace=(tmp_path / "ws").resolve(), sandbox=True)


@pytest.fixture
def listener() -> Iterator[int]:
    """A server on the host's loopback: reachable unsandboxed, not from inside the sandbox."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


async def bash(ctx: ToolContext, command: str) -> str:
    return (await BashTool().run({"command": command}, ctx)).output


@needs_bwrap
async def test_workspace_is_writable_and_the_rest_read_only(
    ctx: ToolContext, tmp_path: Path
) -> None:
    out = await bash(ctx, f"echo hi > a.txt && cat a.txt; echo x > {tmp_path}/outside/b.txt")
    # Under /tmp the sandbox has a private tmpfs: the host's folder is not even there.
    assert "hi" in out and ("Read-only file system" in out or "No such file" in out)
    assert (ctx.workspace / "a.txt").read_text() == "hi\n"
    assert not (tmp_path / "outside" / "b.txt").exists()
    for target in ("~/.bashrc", "/etc/beecode-test", "/usr/local/bin/x"):
        out = await bash(ctx, f"touch {target} && echo WROTE")
        assert "WROTE" not in out, target


@needs_bwrap
@pytest.mark.parametrize("host", ["127.0.0.1", "1.1.1.1"])
async def test_no_network(ctx: ToolContext, listener: int, host: str) -> None:
    port = listener if host == "127.0.0.1" else 80
    probe = f"import socket; socket.create_connection(('{host}', {port}), 3); print('CONNECTED')"
    out = await bash(ctx, f'python3 -c "{probe}"')
    assert "CONNECTED" not in out
    unsandboxed = ToolContext(workspace=ctx.workspace)
    if host == "127.0.0.1":
        assert "CONNECTED" in await bash(unsandboxed, f'python3 -c "{probe}"')


@needs_bwrap
async def test_background_jobs_are_sandboxed(ctx: ToolContext, tmp_path: Path) -> None:
    command = f"echo x > {tmp_path}/outside/job.txt; echo rc=$?; touch inside.txt; echo END"
    output = await job_output(ctx, command)
    assert "rc=1" in output and (ctx.workspace / "inside.txt").exists()
    assert not (tmp_path / "outside" / "job.txt").exists()


async def test_missing_bwrap_refuses_instead_of_running_unconfined(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to(shutil.which("bash") or "/bin/bash")
    monkeypatch.setenv("PATH", str(bin_dir))
    result = await BashTool().run({"command": "touch ran.txt"}, ctx)
    assert result.is_error and "bwrap is not installed" in result.output
    assert not (ctx.workspace / "ran.txt").exists()


def test_config_turns_it_on_and_an_untrusted_project_cannot_turn_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, ws = tmp_path / "user", tmp_path / "ws"
    user.mkdir()
    (ws / ".beecode").mkdir(parents=True)
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(user))
    (user / "config.toml").write_text("sandbox = true\n")
    (ws / ".beecode" / "config.toml").write_text("sandbox = false\n")
    config = load_config(ws)
    assert config.sandbox is True and "sandbox" in config.ignored_project_settings
    (ws / ".beecode" / "config.toml").write_text("sandbox = true\n")
    (user / "config.toml").write_text("")
    assert load_config(ws).sandbox is True  # a project may ask for more safety

"""An MCP server's stderr log (tools.redacted_log): what a real child process writes reaches the
file with secrets redacted, and a flood leaves a bounded file that ends with the last lines."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from tools.mcp.problems import sdk_logs_to
from tools.redact import MARK
from tools.redacted_log import RedactedLog


def child_writes(sink: RedactedLog, script: str) -> None:
    subprocess.run([sys.executable, "-c", script], stderr=sink.pipe(), check=True, timeout=60)


def test_secrets_never_reach_the_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "s3cr3t-value-42")
    log = tmp_path / "mcp.x.stderr"
    with RedactedLog(log) as sink:
        script = (
            "import sys; print('auth with s3cr3t-value-42 and ghp_' + 'a' * 36, file=sys.stderr)"
        )
        child_writes(sink, script)
    text = log.read_text()
    assert text == f"auth with {MARK} and {MARK}\n"


def test_a_flood_is_bounded_and_keeps_its_end(tmp_path: Path) -> None:
    log = tmp_path / "mcp.x.stderr"
    with RedactedLog(log, limit=64 * 1024) as sink:
        script = "import sys\nfor i in range(20000): print(f'line {i}', file=sys.stderr)"
        child_writes(sink, script)
    text = log.read_text()
    assert len(text.encode()) <= 64 * 1024 + 1024
    assert text.startswith("[... earlier output cut") and text.endswith("line 19999\n")


def test_the_sdks_own_log_records_are_redacted(tmp_path: Path) -> None:
    log = tmp_path / "mcp.log"
    sdk = logging.getLogger("mcp")
    before = list(sdk.handlers)
    sdk_logs_to(log)
    try:
        logging.getLogger("mcp.client").warning("bad line from a server: token=abc123def456ghi")
    finally:
        for handler in set(sdk.handlers) - set(before):  # later tests log elsewhere
            handler.close()
            sdk.removeHandler(handler)
    assert log.read_text().rstrip().endswith(f"bad line from a server: token={MARK}")

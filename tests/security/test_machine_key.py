"""The managed server's per-machine API key: made once, readable by this user only, passed as a
file (never in argv, which every local user can read), and sent by beecode's own clients."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from server.launch.machine_key import key_for, key_path, machine_api_key, machine_key_file


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BEECODE_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def test_the_key_is_made_once_and_private() -> None:
    assert not key_path().exists()
    first = machine_api_key()
    assert len(first) >= 40 and machine_api_key() == first
    assert stat.S_IMODE(key_path().stat().st_mode) == 0o600
    assert machine_key_file().read_text().strip() == first


@pytest.mark.parametrize(
    ("url", "sent"),
    [
        ("http://127.0.0.1:8080", True),
        ("http://localhost:8080/v1", True),
        ("http://[::1]:8080", True),
        ("http://192.168.1.9:8080", False),
        ("https://api.example.com/v1", False),
    ],
)
def test_the_key_goes_only_to_loopback(url: str, sent: bool) -> None:
    assert key_for(url, None) is None  # no key made yet: nothing sent
    key = machine_api_key()
    assert key_for(url, None) == (key if sent else None)
    assert key_for(url, "users-own") == "users-own"


@pytest.mark.real_server
def test_up_serves_only_with_the_machine_key(tmp_path: Path) -> None:
    from server.client import get_props
    from server.launch.addresses import free_port
    from server.process.detached import up
    from server.process.state import down, running

    server = up("tiny", port=free_port())
    try:
        record = running()
        assert record is not None
        key = machine_api_key()
        assert "--api-key-file" in record.argv and key not in " ".join(record.argv)
        anonymous = httpx.get(server.url + "/v1/models", timeout=10)
        assert anonymous.status_code == 401
        assert httpx.get(server.url + "/health", timeout=10).status_code == 200
        assert get_props(server.url).n_ctx > 0  # beecode's client sends the key
        # The agent on the managed server (no endpoint configured) sends it too.
        ws = tmp_path / "ws"
        ws.mkdir()
        task = ["-p", "Say hi.", "--profile", "tiny", "--output-format", "json", "--max-steps", "1"]
        env = {**os.environ, "BEECODE_DATA_DIR": str(tmp_path / "data")}
        env["BEECODE_CONFIG_DIR"] = str(tmp_path / "config")
        done = subprocess.run(
            [sys.executable, "-m", "agent", *task, "--permission-mode", "plan"],
            cwd=ws,
            env={**env, "PYTHONPATH": os.getcwd()},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode in (0, 3), done.stderr[-2000:]
        assert json.loads(done.stdout)["turns"]
    finally:
        down()

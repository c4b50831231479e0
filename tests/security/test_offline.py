"""Offline by default, proven: a cached Hugging Face model starts with no Hub request, and a
headless session runs inside a network namespace with no route, against a server on its loopback,
opening no connection but to that loopback (every connect and lookup is recorded by an audit hook).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from server.engine.build import Engine
from server.launch.addresses import free_port

# Records every network connect and name lookup of the Python process it is loaded into.
AUDIT = textwrap.dedent(
    """
    import json, socket, sys
    _log = open(sys.argv.pop(1), "a")
    def _hook(event, args):
        if event == "socket.connect" and args[0].family != socket.AF_UNIX:
            _log.write(json.dumps(["connect", str(args[1][0])]) + "\\n"); _log.flush()
        elif event == "socket.getaddrinfo":
            _log.write(json.dumps(["resolve", str(args[0])]) + "\\n"); _log.flush()
    sys.addaudithook(_hook)
    """
)
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def network_events(log: Path) -> list[list[str]]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [json.loads(line) for line in lines]


def test_cached_hub_model_cold_start_asks_the_hub_nothing(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    snapshot = hub / "models--org--model" / "snapshots" / ("a" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "m.gguf").write_bytes(b"GGUF" + bytes(60))
    (hub / "models--org--model" / "refs").mkdir()
    (hub / "models--org--model" / "refs" / "main").write_text("a" * 40)
    log = tmp_path / "net.log"
    code = AUDIT + textwrap.dedent(
        """
        from server.models.huggingface import hf_download
        from server.models.spec import ModelSpec
        print(hf_download(ModelSpec(kind="hf", repo="org/model", filename="m.gguf"), None))
        """
    )
    env = {**os.environ, "HF_HUB_CACHE": str(hub), "PYTHONPATH": os.getcwd()}
    env.pop("HF_HUB_OFFLINE", None)
    done = subprocess.run(
        [sys.executable, "-c", code, str(log)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("m.gguf")
    assert network_events(log) == []


def _unshare_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.real_server
@pytest.mark.skipif(
    not _unshare_works(), reason="unshare -n is not available (needs root or userns)"
)
def test_headless_session_in_a_namespace_with_no_route(
    engine: Engine, smollm2_path: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    (ws / ".beecode").mkdir(parents=True)
    (ws / ".beecode" / "config.toml").write_text("temperature = 0.0\nmax_tokens = 64\n")
    log, port = tmp_path / "net.log", free_port()
    runner = tmp_path / "beecode_audited.py"
    runner.write_text(
        AUDIT + "from agent.cli import main\nsys.argv[0] = 'beecode'\nsys.exit(main())\n"
    )
    binary = engine.binary
    url = f"http://127.0.0.1:{port}"
    inside = textwrap.dedent(
        f"""
        set -e
        ip link set lo up
        ! python3 -c 'import socket; socket.create_connection(("1.1.1.1", 80), 3)' 2>/dev/null
        "{binary}" -m "{smollm2_path}" -c 2048 -np 1 --host 127.0.0.1 --port {port} \
            > "{tmp_path}/server.log" 2>&1 &
        trap 'kill $!' EXIT
        for i in $(seq 1 240); do
            python3 -c 'import urllib.request as u; u.urlopen("{url}/health", timeout=2)' \
                2>/dev/null && break
            sleep 0.5
        done
        "{sys.executable}" "{runner}" "{log}" -p "Say hello." --endpoint {url}/v1 \
            --permission-mode plan --output-format json --max-steps 2
        """
    )
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    env.update(BEECODE_DATA_DIR=str(tmp_path / "data"), BEECODE_CONFIG_DIR=str(tmp_path / "cfg"))
    done = subprocess.run(
        ["unshare", "-n", "bash", "-c", inside],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 3), done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["turns"] and all(t["source"] == "server" for t in result["turns"])
    events = network_events(log)
    assert events, "the audit hook saw no connection at all"
    assert {host for _, host in events} <= LOOPBACK, events

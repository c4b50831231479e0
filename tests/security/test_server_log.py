"""llama-server's own log (server.log) never holds a secret, stays bounded, and still ends with the
lines that say why the server died: a real child process (a stand-in that prints a secret and
answers /health, or one that dies) and a real llama-server that echoes a secret and exits."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from server.engine.build import Engine
from server.errors import LaunchError
from server.launch.addresses import free_port
from server.process import managed
from server.process.managed import ManagedServer
from tools.redact import MARK

TOKEN = "ghp_" + "a1" * 18
ENV_SECRET = "deploy-secret-0123456789"

# Prints secrets (a pattern, a scrubbed variable's value), then serves /health until stopped.
SERVING = f"""
import http.server, os, sys
print("loaded; auth {TOKEN} and", os.environ["DEPLOY_TOKEN"], flush=True)
print("warn: password=hunter2hunter2x", file=sys.stderr, flush=True)
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"{{}}")
    def log_message(self, *args):
        print("request", {TOKEN!r}, flush=True)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Health).serve_forever()
"""
# Floods the pipe (far past its buffer), then says why it dies: the last line must be in the log.
DYING = f"""
for i in range(20000):
    print(f"filler line {{i}} {TOKEN}")
print("error: invalid argument: {TOKEN}")
raise SystemExit(1)
"""


def server(tmp_path: Path, argv: list[str], port: int) -> ManagedServer:
    return ManagedServer(
        argv, log_path=tmp_path / "server.log", host="127.0.0.1", port=port, restart=False
    )


def test_a_serving_servers_log_is_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", ENV_SECRET)
    port = free_port()
    running = server(tmp_path, [sys.executable, "-c", SERVING, str(port)], port)
    running.start(timeout_s=60)
    running.stop()
    log = (tmp_path / "server.log").read_text()
    assert "loaded; auth" in log and "request" in log and "password=" in log
    for secret in (TOKEN, ENV_SECRET, "hunter2hunter2x"):
        assert secret not in log
    assert log.count(MARK) >= 4


def test_the_lines_that_say_why_it_died_survive_a_flood(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(managed, "LOG_LIMIT_BYTES", 64 * 1024)
    port = free_port()
    dying = server(tmp_path, [sys.executable, "-c", DYING], port)
    with pytest.raises(LaunchError, match=r"exited with code 1 while starting") as failed:
        dying.start(timeout_s=60)
    assert f"does not accept '{MARK}'" in str(failed.value) and TOKEN not in str(failed.value)
    log = (tmp_path / "server.log").read_text()
    assert len(log.encode()) <= 64 * 1024 + 1024 and TOKEN not in log
    assert log.startswith("[... earlier output cut")
    assert log.endswith(f"filler line 19999 {MARK}\nerror: invalid argument: {MARK}\n")


def test_a_new_run_appends_to_the_log_it_finds(tmp_path: Path) -> None:
    (tmp_path / "server.log").write_text("from the run before\n")
    port = free_port()
    dying = server(tmp_path, [sys.executable, "-c", DYING], port)
    with pytest.raises(LaunchError):
        dying.start(timeout_s=60)
    log = (tmp_path / "server.log").read_text()
    assert log.startswith("from the run before\n") and TOKEN not in log


@pytest.mark.real_server
def test_a_real_llama_server_that_echoes_a_secret(engine: Engine, tmp_path: Path) -> None:
    port = free_port()
    argv = [str(engine.binary), "--port", str(port), TOKEN]
    with pytest.raises(LaunchError, match=re.escape(f"does not accept '{MARK}'")):
        server(tmp_path, argv, port).start(timeout_s=60)
    log = (tmp_path / "server.log").read_text()
    assert f"invalid argument: {MARK}" in log and TOKEN not in log

"""Sign-in to an MCP server over streamable HTTP: a real MCPServer on 127.0.0.1 with the SDK's
authorization server in front (tests/mcp/oauth_peer.py, which approves every sign-in at once),
`beecode mcp login` as a user runs it (the URL pasted back, or a browser and the loopback
listener), the servers' start with what it stored, refresh, logout, and hostile redirects."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.mcp.oauth_browser import visit
from tests.tools.processes import wait_listening
from tests.tools.test_mcp_http import free_port
from tools.mcp.servers import McpServers
from tools.mcp.signin import TokenFile

pytestmark = pytest.mark.usefixtures("beecode_dirs")
HERE = Path(__file__).parent
PEER, BROWSER, NOTES = HERE / "oauth_peer.py", HERE / "oauth_browser.py", HERE / "notes_mcp.py"
NEEDS = "mcp server 'signed': needs sign-in: run `beecode mcp login signed`"
Peer = Callable[..., str]


@pytest.fixture
def peer(tmp_path: Path) -> Iterator[Peer]:
    """Start a signed peer (``mode``: "", "elsewhere", "state"); its MCP URL."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(mode: str = "") -> str:
        port, log = free_port(), tmp_path / f"peer{len(procs)}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, str(PEER), str(port), mode],
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        procs.append(proc)
        wait_listening(port, proc, log)
        return f"http://127.0.0.1:{port}/mcp"

    try:
        yield start
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def configure(workspace: Path, **servers: dict[str, object]) -> None:
    (workspace / ".beecode").mkdir(exist_ok=True)
    user = Path(os.environ["BEECODE_CONFIG_DIR"]) / "mcp.json"
    user.write_text(json.dumps({"mcpServers": servers}))


def beecode(workspace: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agent.cli", *args],
        cwd=workspace,
        env={**os.environ, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def login_pasting(workspace: Path) -> tuple[int, str, str]:
    """`beecode mcp login signed` in a terminal without a browser: the test opens the printed
    URL and pastes back where it was sent."""
    proc = beecode(workspace, "mcp", "login", "signed", DISPLAY="", WAYLAND_DISPLAY="")
    assert proc.stdout is not None and proc.stdin is not None
    shown = []
    for line in proc.stdout:
        shown.append(line)
        if line.startswith("http"):
            break
    else:
        raise AssertionError(f"no URL shown: {shown} {proc.communicate()}")
    location, _ = visit(line.strip())
    out, err = proc.communicate(location + "\n", timeout=120)
    return proc.returncode, "".join(shown) + out, err


def stored_token(url: str) -> str:
    record = json.loads(TokenFile(url).path.read_text())
    token: str = record["tokens"]["access_token"]
    return token


def start(specs: Mapping[str, Mapping[str, Any]], log: Path) -> tuple[list[str], list[str]]:
    """Start the servers: the lines of those not up, the tools of those up."""
    servers = McpServers(specs, log, connect_timeout_s=30)
    try:
        problems = servers.connect()
        return problems, [tool.name for tool in servers.tools(set())]
    finally:
        servers.close()


def test_login_stores_an_owner_only_token_file_and_the_tools_list_works(
    peer: Peer, workspace: Path, tmp_path: Path
) -> None:
    url = peer()
    configure(workspace, signed={"type": "http", "url": url})
    code, out, err = login_pasting(workspace)
    assert code == 0, err
    assert "signed in to signed: 1 tool" in out
    path = TokenFile(url).path
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    token = stored_token(url)
    assert token.startswith("peer-at-")
    assert token not in out + err
    assert start({"signed": {"url": url}}, tmp_path / "mcp.log") == ([], ["signed_whoami"])


def test_a_401_at_start_is_one_line_and_the_other_servers_start(
    peer: Peer, workspace: Path, tmp_path: Path
) -> None:
    url = peer()
    notes = {"command": sys.executable, "args": [str(NOTES)]}
    specs: dict[str, dict[str, Any]] = {"signed": {"url": url}, "notes": notes}
    problems, tools = start(specs, tmp_path / "mcp.log")
    assert problems == [NEEDS]
    assert "notes_env_var" in tools and not any(t.startswith("signed") for t in tools)
    assert not TokenFile(url).path.exists()  # nothing registered or stored by a start
    header = {"signed": {"url": url, "headers": {"Authorization": "Bearer stale"}}}
    refused = "mcp server 'signed': the server refused the Authorization header of its config"
    assert start(header, tmp_path / "mcp.log")[0] == [f"{refused} (HTTP 401)"]
    configure(workspace, signed={"type": "http", "url": url})
    listed = beecode(workspace, "mcp", "list").communicate(timeout=120)[0]
    assert "signed · failed, needs sign-in: run `beecode mcp login signed`" in listed


def test_the_token_is_in_no_session_log_or_event(
    peer: Peer, workspace: Path, tmp_path: Path
) -> None:
    from tests.agent.sse_server import Script, chunk, scripted_endpoint

    url = peer()
    configure(workspace, signed={"type": "http", "url": url})
    assert login_pasting(workspace)[0] == 0
    token = stored_token(url)
    call = {"index": 0, "id": "c1", "type": "function"}
    call["function"] = {"name": "signed_whoami", "arguments": "{}"}
    with scripted_endpoint() as endpoint:
        Script.body = [chunk({"tool_calls": [call]}), chunk({}, finish="tool_calls"), "[DONE]"]
        args = ["-p", "who am I", "--endpoint", endpoint, "--permission-mode", "yolo"]
        proc = beecode(workspace, *args, "--output-format", "stream-json", "--max-steps", "1")
        out, err = proc.communicate(timeout=300)
    assert '"signed in"' in out, out + err  # the call went through with the token
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != TokenFile(url).path]
    sessions = [p for p in written if "sessions" in p.parts]
    assert sessions and any(p.name.startswith("mcp") for p in written), written
    for text in [out, err, *(p.read_text(errors="replace") for p in written)]:
        assert token not in text


def test_logout_deletes_the_tokens_and_the_next_start_asks_again(
    peer: Peer, workspace: Path, tmp_path: Path
) -> None:
    url = peer()
    configure(workspace, signed={"type": "http", "url": url})
    assert login_pasting(workspace)[0] == 0
    out = beecode(workspace, "mcp", "logout", "signed").communicate(timeout=120)[0]
    assert out == "signed out of signed: its tokens are deleted\n"
    assert not TokenFile(url).path.exists()
    assert start({"signed": {"url": url}}, tmp_path / "mcp.log")[0] == [NEEDS]
    again = beecode(workspace, "mcp", "logout", "signed").communicate(timeout=120)[0]
    assert again == "signed: not signed in; nothing to delete\n"


def test_an_expired_token_is_refreshed_at_start(
    peer: Peer, workspace: Path, tmp_path: Path
) -> None:
    url = peer()
    configure(workspace, signed={"type": "http", "url": url})
    assert login_pasting(workspace)[0] == 0
    old = stored_token(url)
    httpx2.post(url.replace("/mcp", "/test/expire")).raise_for_status()  # the server's clock
    path = TokenFile(url).path
    record = json.loads(path.read_text())
    path.write_text(json.dumps(record | {"expires_at": 1}))  # and the client's
    assert start({"signed": {"url": url}}, tmp_path / "mcp.log") == ([], ["signed_whoami"])
    assert stored_token(url) not in (old, "") and path.stat().st_mode & 0o777 == 0o600


def test_a_renamed_entry_keeps_the_sign_in_and_another_server_cannot_read_it(
    peer: Peer, workspace: Path, tmp_path: Path
) -> None:
    url, other = peer(), peer()
    configure(workspace, signed={"type": "http", "url": url})
    assert login_pasting(workspace)[0] == 0
    specs = {"renamed": {"url": url}, "signed": {"url": other}}
    assert start(specs, tmp_path / "mcp.log") == ([NEEDS], ["renamed_whoami"])


def test_login_in_the_browser_through_the_loopback_listener(
    peer: Peer, workspace: Path, tmp_path: Path
) -> None:
    url, browsed = peer(), tmp_path / "browsed"
    configure(workspace, signed={"type": "http", "url": url})
    browser = f"{sys.executable} {BROWSER} %s"
    proc = beecode(workspace, "mcp", "login", "signed", DISPLAY=":0", BROWSER=browser)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "signed in to signed: 1 tool" in out
    location, page = browsed.read_text().splitlines()[:2]
    assert location.startswith("http://127.0.0.1:") and page.startswith("200 ")
    assert stored_token(url).startswith("peer-at-")


@pytest.fixture(autouse=True)
def browsed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSED", str(tmp_path / "browsed"))


def test_a_redirect_to_another_host_is_refused(peer: Peer, workspace: Path) -> None:
    url = peer("elsewhere")
    configure(workspace, signed={"type": "http", "url": url})
    code, _, err = login_pasting(workspace)
    assert code == 1
    assert "refused: that is not this sign-in's redirect (http://127.0.0.1:" in err
    assert not TokenFile(url).path.exists()


def test_a_redirect_with_another_state_is_refused_pasted_and_by_the_listener(
    peer: Peer, workspace: Path, tmp_path: Path
) -> None:
    url = peer("state")
    configure(workspace, signed={"type": "http", "url": url})
    code, _, err = login_pasting(workspace)
    assert code == 1 and "refused: the redirect's state is not this sign-in's" in err
    assert not TokenFile(url).path.exists()
    asyncio.run(_listener_refuses_another_state(url))


async def _listener_refuses_another_state(url: str) -> None:
    """The listener answers a redirect with another state 400 and waits on: the same code with
    this sign-in's state is then taken."""
    from urllib.parse import parse_qs, urlsplit

    from tools.mcp.handoff import Handoff
    from tools.mcp.login import sign_in

    seen: list[str] = []

    def browse(page: str) -> bool:
        location, landed = visit(page)
        seen.append(landed)
        state = parse_qs(urlsplit(page).query)["state"][0]
        code = parse_qs(urlsplit(location).query)["code"][0]
        right = location.split("?")[0] + f"?code={code}&state={state}"
        seen.append(str(httpx2.get(right).status_code))
        return True

    async def no_paste() -> str:
        raise AssertionError("the listener was not used")

    names = await sign_in({"url": url}, Handoff(lambda line: None, no_paste, browse))
    assert names == ["whoami"]
    assert seen[0].startswith("400 ") and "state is not this sign-in's" in seen[0]
    assert seen[1] == "200"


def test_a_sign_in_page_that_is_not_https_or_loopback_is_not_opened() -> None:
    from tools.mcp.handoff import SignInError, answer_of, checked_page

    for page in ("https://auth.example.com/authorize?x=1", "http://127.0.0.1:9/authorize"):
        assert checked_page(page) == page
    for page in ("http://auth.example.com/authorize", "file:///etc/passwd", "javascript:x"):
        with pytest.raises(SignInError, match="not an https URL"):
            checked_page(page)
    back = "http://127.0.0.1:5/callback"
    with pytest.raises(SignInError, match="refused the sign-in: access denied"):
        answer_of(f"{back}?error=access_denied&error_description=access+denied&state=s", back, "s")
    assert answer_of(f"{back}?code=c1&state=s", back, "s").code == "c1"
    assert answer_of(" c2 \n", back, "s").code == "c2"  # the bare code

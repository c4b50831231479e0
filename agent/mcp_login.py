"""``beecode mcp login NAME`` and ``logout NAME``: an HTTP server's sign-in, on the terminal
(the browser where there is one, else the URL to open and the answer pasted back)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Mapping
from typing import Any

from server.paths import state_dir
from tools.mcp.handoff import Handoff, SignInError, open_browser
from tools.mcp.login import sign_in
from tools.mcp.problems import sdk_logs_to
from tools.mcp.signin import TokenFile


def login(name: str, spec: Mapping[str, Any]) -> int:
    sdk_logs_to(state_dir() / "mcp.log")  # the SDK's records, never on the terminal
    handoff = Handoff(_say, _pasted, open_browser)
    _say(f"{name}: signing in to {spec['url']}")
    try:
        names = asyncio.run(sign_in(spec, handoff))
    except SignInError as err:
        print(f"beecode mcp: {name}: not signed in: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"beecode mcp: {name}: not signed in (interrupted)", file=sys.stderr)
        return 130
    count = f"{len(names)} tool{'s' * (len(names) != 1)}"
    _say(f"signed in to {name}: {count}; the sign-in is kept in {TokenFile(spec['url']).path}")
    return 0


def logout(name: str, spec: Mapping[str, Any]) -> int:
    if TokenFile(spec["url"]).delete():
        print(f"signed out of {name}: its tokens are deleted")
    else:
        print(f"{name}: not signed in; nothing to delete")
    return 0


def _say(line: str) -> None:
    print(line, flush=True)


async def _pasted() -> str:
    """One line from stdin, read in a daemon thread: a sign-in that ends another way (a
    timeout, ^C) does not wait for it."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str] = loop.create_future()

    def give(line: str) -> None:
        if not answer.done():
            answer.set_result(line)

    def read() -> None:
        line = sys.stdin.readline()
        with contextlib.suppress(RuntimeError):  # the loop is gone: the sign-in ended
            loop.call_soon_threadsafe(give, line)

    threading.Thread(target=read, name="paste", daemon=True).start()
    return await answer

"""How a sign-in page hands its code back: where there is a browser, it is opened on the
server's authorization URL and a listener on 127.0.0.1 (a free port) takes the redirect; in a
terminal without one, the URL is printed and the user pastes back the URL they were sent to (or
the bare code). Either way the answer must come to this sign-in's own loopback redirect URI with
its own state; anything else is refused. The SDK offers no device-code flow (RFC 8628), so
there is none here."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import sys
import webbrowser
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult

WAIT_S = 300.0  # for the browser's redirect or the pasted answer
_PAGE = "<!doctype html><title>beecode</title><p>{}</p>"


class SignInError(Exception):
    """A sign-in that cannot go on: one line saying why."""


def has_browser() -> bool:
    """A desktop to show a browser on: macOS and Windows always, elsewhere a display."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def loopback(host: str | None) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


def checked_page(url: str) -> str:
    """The authorization URL, refused unless https (or http on this machine)."""
    parts = urlsplit(url)
    if parts.scheme == "https" or (parts.scheme == "http" and loopback(parts.hostname)):
        return url
    raise SignInError(f"refused: the server's sign-in page is not an https URL: {url[:200]}")


def answer_of(text: str, redirect_uri: str, state: str) -> AuthorizationCodeResult:
    """The code in a redirect to ``redirect_uri`` with ``state`` (or in a bare pasted code)."""
    text = text.strip()
    if not text:
        raise SignInError("nothing was pasted")
    if "://" not in text and "?" not in text and " " not in text:
        return AuthorizationCodeResult(code=text, state=state)  # the bare code
    got, want = urlsplit(text), urlsplit(redirect_uri)
    if (got.scheme, got.hostname, got.port, got.path) != (
        want.scheme,
        want.hostname,
        want.port,
        want.path,
    ):
        raise SignInError(f"refused: that is not this sign-in's redirect ({redirect_uri})")
    query = {key: values[0] for key, values in parse_qs(got.query).items()}
    if "error" in query:
        why = query.get("error_description") or query["error"]
        raise SignInError(f"the server refused the sign-in: {why[:200]}")
    if query.get("state") != state:
        raise SignInError("refused: the redirect's state is not this sign-in's")
    if not query.get("code"):
        raise SignInError("the redirect holds no code")
    return AuthorizationCodeResult(code=query["code"], state=state, iss=query.get("iss"))


class Handoff:
    """The SDK's redirect and callback handlers for one sign-in. ``say`` tells the user one
    line; ``ask`` reads the pasted answer; ``opener`` opens a browser (False: none opened)."""

    def __init__(
        self,
        say: Callable[[str], None],
        ask: Callable[[], Awaitable[str]],
        opener: Callable[[str], bool] | None,
        wait_s: float = WAIT_S,
    ) -> None:
        self.say, self.ask, self.opener, self.wait_s = say, ask, opener, wait_s
        self.redirect_uri = ""
        self._server: asyncio.Server | None = None
        self._answer: asyncio.Future[AuthorizationCodeResult] | None = None
        self._state = ""
        self._listening = False

    async def __aenter__(self) -> Handoff:
        self._answer = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = f"http://127.0.0.1:{port}/callback"
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def redirect(self, url: str) -> None:
        """Show the authorization URL: in a browser, else for the user to open."""
        checked_page(url)
        self._state = parse_qs(urlsplit(url).query).get("state", [""])[0]
        if self.opener is not None and await asyncio.to_thread(self.opener, url):
            self._listening = True
            self.say(f"signing in in your browser; if it did not open, visit: {url}")
            return
        self.say("open this URL in a browser and sign in:")
        self.say(url)
        self.say("then paste here the URL the browser was sent to (or the code it shows):")

    async def callback(self) -> AuthorizationCodeResult:
        """The code, from the listener or the pasted answer."""
        assert self._answer is not None
        try:
            if self._listening:
                return await asyncio.wait_for(asyncio.shield(self._answer), self.wait_s)
            text = await asyncio.wait_for(self.ask(), self.wait_s)
        except TimeoutError:
            raise SignInError(f"no sign-in within {self.wait_s:g} s") from None
        return answer_of(text, self.redirect_uri, self._state)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One browser request: the redirect with this sign-in's state is taken; anything else
        gets an error page and the listener waits on."""
        status, text = "404 Not Found", "not found"
        with contextlib.suppress(OSError, asyncio.IncompleteReadError, ValueError):
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1").split()
            target = line[1] if len(line) == 3 and line[0] == "GET" else ""
            if target.split("?")[0] == "/callback" and self._answer and not self._answer.done():
                try:
                    found = answer_of(f"{self.redirect_uri}?{urlsplit(target).query}", *self._want)
                    self._answer.set_result(found)
                    status, text = "200 OK", "Signed in. You can close this tab."
                except SignInError as err:
                    status, text = "400 Bad Request", str(err)
            body = _PAGE.format(text.replace("<", "&lt;")).encode()
            head = f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            writer.write(head.encode() + body)
            await writer.drain()
        writer.close()

    @property
    def _want(self) -> tuple[str, str]:
        return self.redirect_uri, self._state


def open_browser(url: str) -> bool:
    """The platform's browser on ``url``, where there is a desktop to show it."""
    return has_browser() and webbrowser.open(url)

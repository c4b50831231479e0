"""Sign-in for HTTP MCP servers: the SDK's OAuth client (discovery, dynamic client registration,
PKCE, refresh) as the connection's httpx auth, with its tokens in a file of the user's data dir.

One file per server URL (the name of its SHA-256), so a renamed config entry keeps its sign-in
and no other server's entry can read it: owner-only (0600, its folder 0700), written atomically.
Tokens go nowhere else: not into a session, a log, an event or an error message. At start a
server is asked with what is stored (refreshed by the SDK when it has expired); a server that
wants a sign-in then stops with one line asking for ``beecode mcp login NAME``, since a start in
the background cannot open a browser."""

from __future__ import annotations

import hashlib
import time
from collections.abc import AsyncGenerator, Mapping
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from server.paths import data_dir, read_json_object, write_json

CLIENT_NAME = "beecode"


class SignInNeeded(Exception):
    """The server wants a sign-in that cannot happen here (a start in the background)."""


def tokens_dir() -> Path:
    path = data_dir() / "mcp-auth"
    path.mkdir(mode=0o700, exist_ok=True)
    path.chmod(0o700)
    return path


class TokenFile:
    """The SDK's TokenStorage for one server URL. ``staged``: kept in memory until ``commit()``
    (a sign-in that fails leaves the stored one as it was)."""

    def __init__(self, url: str, *, staged: bool = False) -> None:
        self.url, self.staged = url, staged
        self.path = tokens_dir() / f"{hashlib.sha256(url.encode()).hexdigest()[:32]}.json"
        self.record: dict[str, Any] = {} if staged else self._read()

    def _read(self) -> dict[str, Any]:
        record = read_json_object(self.path)
        return record if record is not None and record.get("url") == self.url else {}

    def exists(self) -> bool:
        return bool(self._read().get("tokens"))

    def _save(self) -> None:
        if not self.staged:
            write_json(self.path, {"url": self.url, **self.record}, mode=0o600)

    def commit(self) -> None:
        self.staged = False
        self._save()

    def delete(self) -> bool:
        """Forget this server's sign-in; whether there was one."""
        had = self.path.exists()
        self.path.unlink(missing_ok=True)
        self.record = {}
        return had

    @property
    def expires_at(self) -> float | None:
        value = self.record.get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    def metadata(self) -> OAuthMetadata | None:
        raw = self.record.get("metadata")
        return OAuthMetadata.model_validate(raw) if isinstance(raw, dict) else None

    def keep_metadata(self, metadata: OAuthMetadata | None) -> None:
        """The authorization server's endpoints, so a refresh at the next start finds them."""
        if metadata is not None:
            self.record["metadata"] = metadata.model_dump(mode="json", exclude_none=True)
            self._save()

    # The SDK's TokenStorage protocol.

    async def get_tokens(self) -> OAuthToken | None:
        raw = self.record.get("tokens")
        return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.record["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        lifetime = tokens.expires_in
        self.record["expires_at"] = time.time() + lifetime if lifetime is not None else None
        self._save()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self.record.get("client")
        return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.record["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._save()


class Provider(OAuthClientProvider):
    """The SDK's provider, which also reloads what it keeps in memory only (when the stored
    token expires, the authorization server's endpoints) and remembers the first error of its
    flow: the transport logs and swallows it, so without this a failed sign-in would only read
    as a closed connection."""

    def __init__(self, url: str, storage: TokenFile, **handlers: Any) -> None:
        metadata = OAuthClientMetadata(
            client_name=CLIENT_NAME,
            redirect_uris=[AnyUrl(handlers.pop("redirect_uri", "http://127.0.0.1/callback"))],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )
        super().__init__(url, metadata, storage, **handlers)
        self.file = storage
        self.failure: BaseException | None = None

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = self.file.expires_at
        self.context.oauth_metadata = self.context.oauth_metadata or self.file.metadata()

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        await super()._handle_token_response(response)
        self.file.keep_metadata(self.context.oauth_metadata)

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super().async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                outgoing = await flow.asend((yield outgoing))
        except StopAsyncIteration:
            return
        except Exception as error:
            self.failure = self.failure or error
            raise
        finally:
            await flow.aclose()


class Refused(httpx2.Auth):
    """A server with no stored sign-in: its requests go as they are; a 401 is remembered
    (told apart from the refusal of an Authorization header its config sends)."""

    def __init__(self, sends_header: bool) -> None:
        self.sends_header = sends_header
        self.failure: BaseException | None = None

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        response = yield request
        if response.status_code == 401:
            header = "the server refused the Authorization header of its config (HTTP 401)"
            self.failure = SignInNeeded(header if self.sends_header else "")
            raise self.failure


async def _cannot_open(url: str) -> None:
    raise SignInNeeded()


async def _no_callback() -> AuthorizationCodeResult:
    raise SignInNeeded()


def start_auth(url: str, headers: Mapping[str, str]) -> Provider | Refused:
    """The auth of a server's start: its stored sign-in, refreshed when needed, or none."""
    storage = TokenFile(url)
    if not storage.exists():
        return Refused(any(key.lower() == "authorization" for key in headers))
    return Provider(url, storage, redirect_handler=_cannot_open, callback_handler=_no_callback)


def signin_problem(name: str, auth: Provider | Refused | None) -> str:
    """Why the server's start stopped at its sign-in, in one line; "" when it did not."""
    failure = auth.failure if auth is not None else None
    if isinstance(failure, SignInNeeded):
        return str(failure) or f"needs sign-in: run `beecode mcp login {name}`"
    if failure is not None:
        text = str(failure).strip().splitlines()
        detail = text[0][:300] if text else type(failure).__name__
        return f"sign-in failed ({detail}): run `beecode mcp login {name}`"
    return ""

"""An MCP server that needs sign-in: the SDK's MCPServer over streamable HTTP on 127.0.0.1, with
the SDK's own authorization server routes (discovery, dynamic client registration, PKCE, token,
refresh) in front of a provider that approves every request at once, so a test can play the
browser with an HTTP client. ``python oauth_peer.py PORT [MODE]``; MODE ``elsewhere`` sends the
browser to a non-loopback URL, ``state`` back to the client with another state (hostile servers).
``POST /test/expire`` makes every access token it issued stale (as time would)."""

from __future__ import annotations

import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    IdentityAssertionParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

PORT, MODE = int(sys.argv[1]), (sys.argv[2] if len(sys.argv) > 2 else "")
ISSUER = f"http://127.0.0.1:{PORT}"
SCOPE = "user"


class AutoApprove:
    """Every client registers, every sign-in is approved; tokens are kept in memory."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_hex(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        target, state = str(params.redirect_uri), params.state
        if MODE == "elsewhere":
            target = "http://callback.example.net/callback"
        if MODE == "state":
            state = "not-the-state-you-sent"
        return construct_redirect_uri(target, code=code, state=state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        return self._issue(client.client_id or "", authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]  # rotated: the old one is spent
        return self._issue(client.client_id or "", scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found and found.expires_at and found.expires_at < time.time():
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        raise NotImplementedError

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = f"peer-at-{secrets.token_hex(20)}", f"peer-rt-{secrets.token_hex(20)}"
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + 3600
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access, expires_in=3600, refresh_token=refresh, scope=" ".join(scopes)
        )


provider = AutoApprove()
server = MCPServer(
    "signed",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=AnyHttpUrl(ISSUER),
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
        ),
        required_scopes=[SCOPE],
        resource_server_url=None,
    ),
)


@server.tool()
def whoami() -> str:
    """Say that the caller is signed in."""
    return "signed in"


async def expire(request: Request) -> Response:
    for token in provider.access.values():
        token.expires_at = 1
    return JSONResponse({"expired": len(provider.access)})


server.custom_route("/test/expire", methods=["POST"])(expire)


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=PORT)

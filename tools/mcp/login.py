"""``beecode mcp login``'s work: sign in to one HTTP server (the SDK's flow, a fresh client
registration, the code handed back through tools/mcp/handoff.py), list its tools with the new
tokens, and only then store them. A sign-in that fails leaves the stored one as it was."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from mcp import ClientSession
from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError

from tools.mcp.handoff import WAIT_S, Handoff, SignInError
from tools.mcp.problems import problem_of
from tools.mcp.requests import list_tools
from tools.mcp.signin import Provider, TokenFile
from tools.mcp.spawn import open_transport

_OAUTH = (OAuthFlowError, OAuthRegistrationError, OAuthTokenError, SignInError)


async def sign_in(spec: Mapping[str, Any], handoff: Handoff) -> list[str]:
    """Sign in to the server of ``spec`` (a URL); the names of its tools. Raises SignInError
    with one line saying why not."""
    storage = TokenFile(spec["url"], staged=True)
    async with handoff:
        provider = Provider(
            spec["url"],
            storage,
            redirect_uri=handoff.redirect_uri,
            redirect_handler=handoff.redirect,
            callback_handler=handoff.callback,
        )
        try:
            names = await _tool_names(spec, provider)
        except Exception as error:
            raise SignInError(_why(provider.failure or error, spec)) from None
        if provider.failure is not None:  # a failure the session got past
            raise SignInError(_why(provider.failure, spec))
    if not storage.record.get("tokens"):
        raise SignInError("the server did not ask for a sign-in; nothing was stored")
    storage.commit()
    return names


async def _tool_names(spec: Mapping[str, Any], provider: Provider) -> list[str]:
    async with contextlib.AsyncExitStack() as stack:
        read, write = await open_transport(spec, stack, None, auth=provider)
        # A person signs in during the first request: it waits as long as they may take.
        session = ClientSession(read, write, read_timeout_seconds=WAIT_S + 30)
        session = await stack.enter_async_context(session)
        await session.initialize()
        return [tool.name for tool in await list_tools(session)]


def _why(error: BaseException, spec: Mapping[str, Any]) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, _OAUTH):
        return str(error).splitlines()[0][:300] if str(error) else type(error).__name__
    return problem_of(error, spec)

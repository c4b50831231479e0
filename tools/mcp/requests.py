"""Requests to an MCP server besides tool calls: paging through tools/list, and a ping that
tells a hung server from a slow tool."""

from __future__ import annotations

import asyncio

import anyio
from mcp import ClientSession, MCPError, types

MAX_PAGES = 20  # of a tools/list reply
PING_TIMEOUT_S = 5.0  # after a call timed out: a live server answers a ping at once


async def list_tools(session: ClientSession) -> list[types.Tool]:
    listed: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        listed += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return listed


async def answers_ping(session: ClientSession) -> bool:
    try:
        await asyncio.wait_for(session.send_ping(), PING_TIMEOUT_S)
    except (MCPError, TimeoutError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        return False
    return True


async def list_extras(session: ClientSession) -> tuple[list[types.Prompt], list[types.Resource]]:
    """The prompts and resources a server offers (first page; none when it does not say it has
    them)."""
    caps = session.server_capabilities
    prompts = (await session.list_prompts()).prompts if caps and caps.prompts else []
    resources = (await session.list_resources()).resources if caps and caps.resources else []
    return prompts, resources

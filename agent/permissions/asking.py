"""Asking the user for something that is no tool call of the model's (a skill from an untrusted
project, one of the project's checks): the permission rules first, then the face's prompt, the
answer logged to the session. Tool calls go through ``agent.loop.calls``, which also keeps what
was denied in a turn."""

from __future__ import annotations

import asyncio

from agent.events import EventSink, PermissionDecision, PermissionRequest
from agent.permissions.rules import Permissions
from agent.sessions.store import Session
from tools.tool import Kind


async def admitted(
    permissions: Permissions,
    session: Session,
    emit: EventSink,
    request_id: str,
    tool: str,
    subject: str,
    preview: str,
    kind: Kind = "execute",
) -> tuple[bool, str, bool]:
    """(allowed, the reason for the log and a notice, whether the user said "always"): by rule
    or mode, else by the user."""
    decision = permissions.check(tool, kind, subject, [])
    allowed, reason, always = decision.verdict == "allow", decision.reason, False
    if decision.verdict == "ask":
        future: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
        emit(PermissionRequest(request_id, tool, kind, subject, preview, future))
        answer = await future
        allowed = answer.choice in ("allow_once", "allow_always")
        reason = f"user: {answer.choice}"
        if always := answer.choice == "allow_always":
            reason += " " + permissions.allow_always(tool, subject)
        elif answer.choice == "deny" and answer.message:  # the face's account: nobody to ask
            reason = answer.message
    session.append(
        {"type": "permission", "tool": tool, "subject": subject, "reason": reason}
        | {"verdict": "allow" if allowed else "deny"}
    )
    return allowed, reason, always

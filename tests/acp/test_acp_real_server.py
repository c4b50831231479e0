"""`beecode acp` on the real `tiny` llama-server: a prompt's answer streams as message chunks,
ends (end_turn, or max_tokens where the 0.5B model rambles to the cap), and carries the turn's
figures (the server's own, with its drafts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import text_block

from tests.acp.editor import beecode_acp

pytestmark = [pytest.mark.real_server, pytest.mark.usefixtures("beecode_dirs")]


async def test_a_prompt_streams_and_carries_the_figures(workspace: Path, tiny_server: str) -> None:
    # Native calls, so the answer streams token by token (constrained steps send it whole).
    args = ("--endpoint", tiny_server, "--tool-mode", "native")
    async with beecode_acp(workspace, *args) as (conn, editor):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        done = await conn.prompt(
            session_id=session.session_id,
            prompt=[text_block("Write one short sentence about the sea.")],
        )
    assert done.stop_reason in ("end_turn", "max_tokens")  # the mapping is tested scripted
    chunks = editor.of("agent_message_chunk")
    assert len(chunks) > 2, chunks  # streamed: the answer's pieces, then beecode's closing line
    figures = done.field_meta["beecode"]["figures"] if done.field_meta else None
    assert figures is not None and figures["source"] == "server", figures
    assert figures["decode_tok_s"] > 0 and figures["output_tokens"] > 0
    assert figures["speculation"] != "unknown"  # the server says whether it drafts
    closing = chunks[-1].content.text
    assert "tok/s" in closing and f"session {session.session_id}" in closing

"""Against the real `tiny` llama-server (Qwen2.5-Coder 0.5B, ngram-mod speculation): it says it
speculates, a reply held to a JSON schema is drafted too (the grammar judges the drafted tokens),
and a request's timings carry the prefill rate the context's seconds are priced with."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.model.endpoint import OpenAIChatModel, ReplyFormat, StreamEnd
from agent.runtime.served import speculates
from server.client import get_metrics
from server.launch.addresses import server_root
from tests.agent.headless_run import headless_json

pytestmark = pytest.mark.real_server

# A passage the reply copies: n-gram drafting proposes what the prompt already holds.
PASSAGE = "\n".join(
    f"def handler_{n}(request):\n    return respond(request, status={200 + n}, body='ok {n}')"
    for n in range(12)
)
SCHEMA = {
    "type": "object",
    "properties": {"code": {"type": "string"}},
    "required": ["code"],
    "additionalProperties": False,
}


def test_the_server_says_it_speculates(tiny_server: str) -> None:
    assert speculates(server_root(tiny_server), None) is True


async def test_a_schema_held_reply_is_drafted(tiny_server: str) -> None:
    model = OpenAIChatModel(tiny_server, temperature=0.0, max_tokens=700)
    messages = [
        {
            "role": "user",
            "content": f"Copy this code exactly into the JSON field code:\n\n{PASSAGE}",
        }
    ]
    held = ReplyFormat(SCHEMA, "copy", 700)
    before = get_metrics(tiny_server)
    ends = [c async for c in model.stream(messages, [], reply_format=held)]
    decodes = get_metrics(tiny_server)["n_decode_total"] - before["n_decode_total"]
    end = ends[-1]
    assert isinstance(end, StreamEnd) and end.stats.source == "server"
    assert end.stats.constrained
    assert end.stats.draft_n and end.stats.draft_accepted, end.stats
    assert end.stats.prompt_n > 0 and end.stats.prompt_tok_s > 0
    # The drafted steps come from /metrics (tiny runs --metrics); the floor on the steps never
    # exceeds the decodes the server ran (one prompt batch, then one decode per step).
    drafted, least = end.stats.drafted_steps, end.stats.least_steps
    assert drafted is not None and least is not None, end.stats
    assert 1 <= drafted <= end.stats.draft_n
    assert least <= decodes - 1, (least, decodes)


def test_headless_figures_from_the_real_server(
    tiny_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`beecode -p --output-format json` on a speculating server: its figures sum the turn's
    requests and never say "off"."""
    ws = tmp_path / "ws"
    (ws / ".beecode").mkdir(parents=True)
    (ws / ".beecode" / "config.toml").write_text("temperature = 0.0\n")
    monkeypatch.setenv("BEECODE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(tmp_path / "config"))
    result = headless_json(ws, tiny_server, "Reply with one word: pineapple", max_steps=2)
    figures, requests = result["figures"], result["turns"]
    assert figures["source"] == "server" and figures["requests"] == len(requests)
    assert figures["speculation"] in ("on", "paused", "idle", "idle_constrained")
    assert figures["output_tokens"] == sum(r["predicted_n"] for r in requests)
    assert figures["prompt_new"] == sum(r["prompt_n"] for r in requests)
    assert figures["prefill_s"] is not None and figures["prefill_s"] > 0

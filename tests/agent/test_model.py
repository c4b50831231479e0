"""OpenAIChatModel over HTTP: chunk assembly, timings, errors.

The endpoint here is a scripted HTTP server replaying llama-server's wire format (the shapes in
llama-server.md §2.3, §2.8 and cpu-rig.md §5), for the cases a real server will not produce on
demand: a mid-stream error, an endpoint without timings. The real server is exercised in
test_e2e_real_server.py.
"""

from __future__ import annotations

import pytest

from agent.model.endpoint import (
    CallPiece,
    ContextOverflow,
    ModelChunk,
    ModelError,
    OpenAIChatModel,
    ReasoningPiece,
    StreamEnd,
    TextPiece,
)
from agent.runtime.served import small_model
from tests.agent.sse_server import Script, chunk

TIMINGS = {
    "cache_n": 120,
    "prompt_n": 8,
    "prompt_ms": 80.0,
    "prompt_per_token_ms": 10.0,
    "prompt_per_second": 100.0,
    "predicted_n": 30,
    "predicted_ms": 600.0,
    "predicted_per_token_ms": 20.0,
    "predicted_per_second": 50.0,
    "draft_n": 40,
    "draft_n_accepted": 24,
}
USAGE = {
    "completion_tokens": 30,
    "prompt_tokens": 128,
    "total_tokens": 158,
    "prompt_tokens_details": {"cached_tokens": 120},
}


async def pieces(model: OpenAIChatModel) -> list[ModelChunk]:
    tools = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    return [c async for c in model.stream([{"role": "user", "content": "hi"}], tools)]


async def test_stream_yields_typed_pieces_and_server_stats(endpoint: str) -> None:
    Script.body = [
        chunk({"role": "assistant", "content": None}),
        chunk({"reasoning_content": "think"}),
        chunk({"content": "Run "}),
        chunk({"content": "it."}),
        # Bee streams name and id early and the arguments in one late delta.
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "abc", "type": "function", "function": {"name": "bash"}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"command": "ls"}'}}]}),
        chunk({}, finish="tool_calls"),
        chunk(None, usage=USAGE, timings=TIMINGS),
        "[DONE]",
    ]
    got = await pieces(OpenAIChatModel(endpoint))
    assert got[:5] == [
        ReasoningPiece("think"),
        TextPiece("Run "),
        TextPiece("it."),
        CallPiece(0, "abc", "bash", ""),
        CallPiece(0, None, None, '{"command": "ls"}'),
    ]
    end = got[-1]
    assert isinstance(end, StreamEnd) and end.finish_reason == "tool_calls"
    stats = end.stats
    assert (stats.source, stats.decode_tok_s, stats.predicted_n) == ("server", 50.0, 30)
    assert (stats.prompt_n, stats.cache_n, stats.draft_n, stats.draft_accepted) == (8, 120, 40, 24)
    assert stats.acceptance == 0.6

    request = Script.requests[0]
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    assert request["tools"][0]["function"]["name"] == "bash"
    assert "response_format" not in request


async def test_no_speculation_means_no_draft_figures(endpoint: str) -> None:
    timings = {k: v for k, v in TIMINGS.items() if not k.startswith("draft")}
    Script.body = [
        chunk({"content": "x"}),
        chunk({}, finish="stop"),
        chunk(None, usage=USAGE, timings=timings),
        "[DONE]",
    ]
    end = (await pieces(OpenAIChatModel(endpoint)))[-1]
    assert isinstance(end, StreamEnd)
    assert (
        end.stats.draft_n is None
        and end.stats.draft_accepted is None
        and end.stats.acceptance is None
    )


def counters(predicted: int, drafted: int, drafts: int) -> str:
    return (
        f"llamacpp:tokens_predicted_total {predicted}\n"
        f"llamacpp:spec_decode_num_draft_tokens_total {drafted}\n"
        f"llamacpp:spec_decode_num_drafts_total {drafts}\n"
    )


async def test_a_missed_metrics_read_costs_one_figure_not_the_rest(endpoint: str) -> None:
    Script.body = [chunk({"content": "x"}), chunk(None, usage=USAGE, timings=TIMINGS), "[DONE]"]
    # Each request moves the counters by its own figures: 30 tokens, 40 drafted in 2 drafts.
    Script.metrics = [
        counters(1000, 500, 10),
        counters(1030, 540, 12),
        None,  # busy: the figure after the second request is missed
        counters(1060, 580, 14),
        counters(1090, 620, 16),
    ]
    model = OpenAIChatModel(endpoint)
    steps = []
    for _ in range(3):
        end = (await pieces(model))[-1]
        assert isinstance(end, StreamEnd)
        steps.append(end.stats.drafted_steps)
    assert steps == [2, None, 2]


async def test_without_timings_stats_are_measured_client_side(endpoint: str) -> None:
    Script.body = [
        *(chunk({"content": w}) for w in ("a", "b", "c")),
        chunk({}, finish="stop"),
        chunk(None, usage={"completion_tokens": 3, "prompt_tokens": 50, "total_tokens": 53}),
        "[DONE]",
    ]
    end = (await pieces(OpenAIChatModel(endpoint + "/v1")))[-1]
    assert isinstance(end, StreamEnd)
    assert end.stats.source == "client"
    assert (end.stats.predicted_n, end.stats.prompt_n, end.stats.cache_n) == (3, 50, 0)
    assert end.stats.draft_n is None


async def test_context_overflow_is_typed(endpoint: str) -> None:
    Script.status = 400
    Script.body = [
        {
            "error": {
                "code": 400,
                "message": "request (9030 tokens) exceeds the available context size "
                "(8192 tokens), try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 9030,
                "n_ctx": 8192,
            }
        }
    ]
    with pytest.raises(ContextOverflow) as caught:
        await pieces(OpenAIChatModel(endpoint))
    assert (caught.value.n_prompt_tokens, caught.value.n_ctx) == (9030, 8192)
    assert "exceeds the available context size" in str(caught.value)


async def test_http_error_is_one_line(endpoint: str) -> None:
    Script.status = 500
    Script.body = [
        {
            "error": {
                "code": 500,
                "message": "The model produced output that does not\nmatch",
                "type": "server_error",
            }
        }
    ]
    with pytest.raises(ModelError) as caught:
        await pieces(OpenAIChatModel(endpoint))
    assert (
        str(caught.value) == "model server error 500: The model produced output that does not match"
    )


async def test_error_sent_mid_stream(endpoint: str) -> None:
    Script.body = [
        chunk({"content": "par"}),
        {"error": {"code": 500, "message": "slot crashed", "type": "server_error"}},
    ]
    seen: list[ModelChunk] = []
    with pytest.raises(ModelError, match="slot crashed"):
        async for piece in OpenAIChatModel(endpoint).stream([], []):
            seen.append(piece)
    assert seen == [TextPiece("par")]


async def test_unreachable_server() -> None:
    model = OpenAIChatModel("http://127.0.0.1:9")
    with pytest.raises(ModelError, match="cannot reach the model server at http://127.0.0.1:9/v1"):
        await pieces(model)


@pytest.mark.parametrize(
    ("caps", "name", "n_params", "constrained"),
    [
        ({"supports_tool_calls": True}, "qwen2.5-coder-0.5b.gguf", 630_167_424, True),
        ({"supports_tool_calls": True}, "gemma-4-31b-it.gguf", 31_000_000_000, False),
        ({"supports_tool_calls": False}, "gemma-4-31b-it.gguf", 31_000_000_000, True),
        ({"supports_tool_calls": True}, "Qwen3-1.7B", None, True),
        ({"supports_tool_calls": True}, "Qwen3-32B", None, False),
        ({"supports_tool_calls": True}, "my-model", None, False),
    ],
)
def test_tool_mode_follows_the_model(
    caps: dict[str, bool], name: str, n_params: int | None, constrained: bool
) -> None:
    assert bool(small_model(caps, name, n_params)) is constrained

"""server.client: typed views of what llama-server reports, on sample replies and a real server."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from server.client import (
    Props,
    Timings,
    chat,
    get_metrics,
    get_props,
    get_slots,
    openai_base_url,
    parse_metrics,
    served_model,
    tokenize,
)
from server.errors import LaunchError, ServerError
from server.health import health, wait_healthy
from server.launch.addresses import free_port, server_root

# cpu-rig.md §5: a reply without speculation, then the fields ngram speculation adds.
PLAIN = {
    "cache_n": 0,
    "prompt_n": 34,
    "prompt_ms": 279.45,
    "prompt_per_token_ms": 8.22,
    "prompt_per_second": 121.7,
    "predicted_n": 15,
    "predicted_ms": 624.1,
    "predicted_per_token_ms": 44.6,
    "predicted_per_second": 22.4,
}
DRAFTED = {**PLAIN, "draft_n": 256, "draft_n_accepted": 231}


def test_timings_without_drafts_have_no_draft_fields() -> None:
    t = Timings.from_json(PLAIN)
    assert (t.prompt_n, t.cache_n, t.predicted_n) == (34, 0, 15)
    assert t.predicted_per_second == pytest.approx(22.4)
    assert t.draft_n is None and t.draft_n_accepted is None and t.acceptance is None


def test_timings_with_drafts() -> None:
    t = Timings.from_json(DRAFTED)
    assert (t.draft_n, t.draft_n_accepted) == (256, 231)
    assert t.acceptance == pytest.approx(231 / 256)


@pytest.mark.parametrize(
    "bad",
    [
        {k: v for k, v in PLAIN.items() if k != "prompt_n"},
        {**PLAIN, "prompt_n": "34"},
        {**PLAIN, "predicted_ms": True},
    ],
)
def test_timings_with_a_missing_or_bad_field_name_it(bad: dict[str, object]) -> None:
    with pytest.raises(ServerError, match=r"timings\.(prompt_n|predicted_ms)"):
        Timings.from_json(bad)


def test_prometheus_text_is_parsed_with_labels_kept() -> None:
    text = (
        "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n"
        "# TYPE llamacpp:prompt_tokens_total counter\n"
        "llamacpp:prompt_tokens_total 34\n"
        "llamacpp:predicted_tokens_seconds 22.4\n"
        'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 12\n'
    )
    assert parse_metrics(text) == {
        "prompt_tokens_total": 34.0,
        "predicted_tokens_seconds": 22.4,
        'spec_decode_num_accepted_tokens_per_pos_total{position="0"}': 12.0,
    }
    with pytest.raises(ServerError, match="bad line"):
        parse_metrics("llamacpp:n_decode_total many\n")


def test_props_read_the_real_context() -> None:
    props = Props.from_json(
        {
            "default_generation_settings": {"n_ctx": 8192, "params": {}},
            "total_slots": 1,
            "model_path": "m.gguf",
            "build_info": "b11434-pypi",
            "chat_template_caps": {"supports_tools": True, "supports_system_role": 1},
            "modalities": {"vision": True, "audio": False},
        }
    )
    assert (props.n_ctx, props.total_slots, props.build_info) == (8192, 1, "b11434-pypi")
    assert props.vision
    assert props.chat_template_caps == {"supports_tools": True, "supports_system_role": True}
    with pytest.raises(ServerError, match="n_ctx"):
        Props.from_json({"total_slots": 1})


def test_base_urls_are_cleaned_up_either_way() -> None:
    assert server_root("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080"
    assert server_root("http://h:1") == "http://h:1"
    assert openai_base_url("http://h:1/") == openai_base_url("http://h:1/v1") == "http://h:1/v1"


def test_nothing_listening_is_a_one_line_error() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    assert health(url) is None
    with pytest.raises(ServerError, match="cannot reach llama-server") as err:
        get_props(url + "/v1")
    assert f"{url}/props" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ServerError, match="cannot reach llama-server"):
        served_model(url)
    with pytest.raises(LaunchError, match="not answering"):
        wait_healthy(url, timeout_s=0.3)


@contextmanager
def answering(reply: bytes) -> Iterator[tuple[str, list[bytes]]]:
    """A real socket server on loopback that sends `reply` to each request, and the requests."""
    listener = socket.create_server(("127.0.0.1", 0))
    requests: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # closed: the test is over
                return
            with connection:
                requests.append(connection.recv(4096))
                connection.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", requests
    finally:
        listener.close()


def test_health_reads_the_status_line_of_the_reply() -> None:
    loading = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\n{}"
    with answering(loading) as (url, requests):
        assert health(url + "/v1") == 503
    assert requests[0].startswith(b"GET /health HTTP/1.1\r\n")
    with answering(b"HTTP/1.0 200 OK\r\n\r\n") as (url, _):
        assert health(url) == 200
    with answering(b"SSH-2.0-OpenSSH_9.6\r\n") as (url, _):  # not an HTTP server
        assert health(url) is None


@pytest.mark.real_server
def test_a_real_server_reports_props_slots_metrics_and_timings(smol_server: str) -> None:
    wait_healthy(smol_server, timeout_s=5)
    props = get_props(smol_server)
    assert props.n_ctx == 2048 and props.total_slots == 1
    assert props.model_path.endswith(".gguf") and props.build_info
    assert not props.vision  # a text model, no projector
    slots = get_slots(smol_server)
    assert len(slots) == 1 and slots[0]["speculative"] is False
    text, timings = chat(
        smol_server, [{"role": "user", "content": "Say hi."}], max_tokens=8, temperature=0
    )
    assert timings.prompt_n + timings.cache_n > 0 and 0 < timings.predicted_n <= 8
    assert timings.predicted_per_second > 0 and timings.draft_n is None
    metrics = get_metrics(smol_server)
    assert metrics["tokens_predicted_total"] >= timings.predicted_n
    tokens = tokenize(smol_server + "/v1", "def main():")
    assert tokens and all(isinstance(t, int) for t in tokens)
    model = served_model(smol_server)
    assert model.id and model.n_params is not None and model.n_params > 0
    with pytest.raises(ServerError, match="/nope/props answered 404"):
        get_props(smol_server + "/nope")

"""Fuzzing what a server or a file can hand beecode: config files, SSE lines and chunks, replies
with odd or missing timings, GGUF headers. Each test states its case count (RELIABILITY.md)."""

from __future__ import annotations

import asyncio
import json
import os
import struct
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agent.config import Config, ConfigError, load_config
from agent.model.endpoint import ModelError, _dict, _dicts, _pieces, _sse_objects
from agent.model.stats import UNUSABLE_STATS, StreamClock, turn_stats
from server.errors import ModelError as GgufError
from server.models.gguf_header import read_metadata
from tests.faults.fuzzing import ANY_CHAR, JSONISH, SCALARS, TEXT, fuzzed

CONFIG_KEYS = st.sampled_from(
    ["permission_mode", "max_steps", "temperature", "allow", "deny", "extra_roots", "endpoint",
     "tool_mode", "mcp_servers", "bash_timeout_s", "max_output_chars", "trusted_workspaces",
     "no_such_key"]
)  # fmt: skip


def toml_value(value: Any) -> str:
    """A JSON-ish value as TOML (JSON scalars and arrays are TOML too, mostly; not always)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False) if value is not None else '""'


CONFIG_TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=80),
    st.dictionaries(CONFIG_KEYS, JSONISH, max_size=4).map(
        lambda d: "\n".join(f"{k} = {toml_value(v)}" for k, v in d.items())
    ),
)


@fuzzed(1500)
@given(CONFIG_TEXT)
def test_any_config_file_loads_or_is_one_config_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder) / "ws"
        (workspace / ".beecode").mkdir(parents=True)
        (workspace / ".beecode" / "config.toml").write_text(text, "utf-8", "surrogatepass")
        old = os.environ.get("BEECODE_CONFIG_DIR")
        os.environ["BEECODE_CONFIG_DIR"] = str(Path(folder) / "config")
        try:
            config = load_config(workspace)
        except ConfigError as error:
            assert "\n" not in str(error).strip() or "invalid TOML" in str(error)
            return
        finally:
            if old is None:
                del os.environ["BEECODE_CONFIG_DIR"]
            else:
                os.environ["BEECODE_CONFIG_DIR"] = old
    assert isinstance(config, Config)


SSE_LINES = st.lists(
    st.one_of(
        st.text(ANY_CHAR, max_size=30),
        JSONISH.map(lambda v: "data: " + json.dumps(v)),
        st.fixed_dictionaries({"choices": JSONISH, "timings": JSONISH, "usage": JSONISH}).map(
            lambda v: "data: " + json.dumps(v)
        ),
        st.just("data: [DONE]"),
    ),
    max_size=8,
)


async def _lines(lines: list[str]) -> AsyncIterator[str]:
    for line in lines:
        yield line


async def _consume(lines: list[str]) -> None:
    # What OpenAIChatModel.stream does with each event, up to the chunks it yields.
    async for data in _sse_objects(_lines(lines)):
        for choice in _dicts(data.get("choices")):
            _pieces(_dict(choice.get("delta")))


@fuzzed(2000)
@given(SSE_LINES)
def test_any_event_stream_gives_chunks_or_one_model_error(lines: list[str]) -> None:
    try:
        asyncio.run(_consume(lines))
    except ModelError as error:
        assert "\n" not in str(error)


@fuzzed(1000)
@given(st.dictionaries(st.sampled_from(["predicted_per_second", "predicted_n", "prompt_n",
                                        "cache_n", "draft_n", "draft_n_accepted"]), SCALARS),
       st.dictionaries(st.sampled_from(["completion_tokens", "prompt_tokens",
                                        "prompt_tokens_details"]), JSONISH))  # fmt: skip
def test_odd_timings_fail_only_as_the_stream_expects(timings: dict[str, Any], usage: Any) -> None:
    try:
        turn_stats(timings or None, usage, StreamClock())
    except UNUSABLE_STATS:
        pass  # stream() then measures on its own: turn_stats(None, None, clock)
    turn_stats(None, None, StreamClock())


GGUF_MAGIC_V3 = struct.pack("<II", 0x46554747, 3)


def gguf_start(parts: tuple[int, int, str, int, bytes]) -> bytes:
    """A GGUF v3 header: tensor and key counts, one key, a value type, then any bytes."""
    n_tensors, n_kv, key, kind, rest = parts
    name = key.encode("utf-8", "replace")
    counts = struct.pack("<QQQ", n_tensors, n_kv, len(name))
    return GGUF_MAGIC_V3 + counts + name + struct.pack("<I", kind) + rest


GGUF_BYTES = st.one_of(
    st.binary(max_size=64),
    st.binary(max_size=200).map(lambda b: GGUF_MAGIC_V3 + b),
    st.tuples(
        st.integers(0, 3), st.integers(0, 5), TEXT, st.integers(0, 15), st.binary(max_size=64)
    ).map(gguf_start),
)


@fuzzed(1500)
@given(GGUF_BYTES)
def test_any_gguf_header_reads_or_is_one_model_error(data: bytes) -> None:
    with tempfile.NamedTemporaryFile(suffix=".gguf") as file:
        file.write(data)
        file.flush()
        try:
            read_metadata(Path(file.name))
        except GgufError as error:
            assert "\n" not in str(error)

"""Tool output that is enormous, binary or endless, and special files: capped and summarised,
in bounded memory."""

from __future__ import annotations

import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from tools.bash import BashTool
from tools.files import ReadTool
from tools.tool import ToolContext


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    return ToolContext(ws, bash_timeout_s=5)


async def test_enormous_output_is_capped_in_bounded_memory(ctx: ToolContext) -> None:
    bash = BashTool()
    tracemalloc.start()
    try:
        result = await bash.run({"command": "head -c 200000000 /dev/zero | tr '\\0' x"}, ctx)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        bash.close()
    assert len(result.output) <= ctx.max_output_chars + 100
    assert "chars omitted" in result.output
    assert result.output.endswith("[exit code 0]")
    assert peak < 16 << 20, f"peak {peak} bytes for 200 MB of output"


async def test_binary_output_is_shown_as_text_not_raised(ctx: ToolContext) -> None:
    bash = BashTool()
    try:
        result = await bash.run({"command": "head -c 100000 /dev/urandom"}, ctx)
    finally:
        bash.close()
    assert not result.is_error and result.output.endswith("[exit code 0]")
    result.output.encode("utf-8")  # valid text: undecodable bytes became U+FFFD


async def test_endless_output_is_stopped_by_the_timeout(ctx: ToolContext) -> None:
    bash = BashTool()
    try:
        result = await bash.run({"command": "yes", "timeout": 2}, ctx)
    finally:
        bash.close()
    assert result.is_error and "[timed out after 2s" in result.output
    assert len(result.output) <= ctx.max_output_chars + 200


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "/proc/self/status"])
async def test_special_files_are_refused(ctx: ToolContext, special: str) -> None:
    roomy = replace(ctx, extra_roots=[Path("/dev"), Path("/proc")])
    result = await ReadTool().run({"path": special}, roomy)
    if special.startswith("/proc"):
        # A /proc file is a regular file of size 0 that holds text: read as such, bounded.
        assert not result.is_error and "Name:" in result.output
    else:
        assert result.is_error and "a device, not a regular file; not opened" in result.output

"""Writing a GGUF file whole or not at all: the random target and drafter writers share it."""

from __future__ import annotations

from pathlib import Path

from gguf import GGUFWriter


def write_atomically(writer: GGUFWriter, tmp: Path, out: Path) -> Path:
    """Write a filled writer's file at ``tmp`` (its path), then rename it to ``out``; a failure
    leaves neither."""
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        writer.close()
    tmp.replace(out)
    return out

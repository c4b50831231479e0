"""benchmarks/gpu_check.sh's models: random-weight targets of the shipped GPU profiles'
architectures (Gemma 4 31B, Qwen 3.6 27B; scaled down with --cpu), their random DFlash drafters,
and the profiles that serve them, written where they run (server.models.random_target).

    python benchmarks/_gpu_models.py tokenizer OUT.gguf     here: SmolLM2's tokenizer, to carry
    python benchmarks/_gpu_models.py write DIR TOKENIZER [--cpu] [--engine-for PROFILE]

`write` writes what DIR lacks (files are whole or absent) and records each file in
DIR/models.json. A drafter's layout (Bee's or upstream's) and whether an MTP target is wanted
depend on the engine that serves PROFILE, so while it is not built (the build still running)
only the targets are written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Literal

from _common import ROOT  # noqa: F401  (puts the checkout on sys.path)

from server.engine.build import cached_engine
from server.engine.dialect import Dialect, probe
from server.errors import ModelError
from server.launch.plan import engine_for
from server.models.fetch import ensure_model
from server.models.random_drafter import drafter_arch, write_random_dflash_drafter
from server.models.random_target import (
    GEMMA4_31B,
    GEMMA4_TINY,
    QWEN35_TINY,
    QWEN36_27B,
    Shape,
    copy_tokenizer,
    write_random_target,
)
from server.models.spec import SMOLLM2_135M
from server.profiles.builtin import builtin_profiles

MTP: Final = "draft-mtp"
# On CPU: room for the agent's prompt (the GPU launches keep their profiles' contexts), and one
# thread each: the tiny models need no more, and a machine whose cores other work shares stalls
# two threads that spin at every barrier waiting for each other (0.7 s a token, not 2 ms).
CPU_SETTINGS = {"ctx": 4096, "extra_args": ["--threads", "1", "--threads-draft", "1"]}


@dataclass(frozen=True)
class Check:
    """One target and the launches it is measured in: alone (none) and with its speculation."""

    target: str  # its file's stem: "gemma4", "qwen36", "qwen36-mtp"
    stands_for: str  # the built-in profile whose settings the launches keep
    shape: Shape
    speculation: Literal["dflash", "draft-mtp"]
    alone: bool = True  # also served without speculation

    @property
    def none_profile(self) -> str:
        return f"check-{self.target}"

    @property
    def spec_profile(self) -> str:
        return f"check-{self.target}" + ("-dflash" if self.speculation == "dflash" else "")


def checks(cpu: bool) -> list[Check]:
    gemma, qwen = (GEMMA4_TINY, QWEN35_TINY) if cpu else (GEMMA4_31B, QWEN36_27B)
    return [
        Check("gemma4", "gemma4-31b-dflash", gemma, "dflash"),
        Check("qwen36", "qwen3.6-27b-dflash", qwen, "dflash"),
        # the same target with its MTP layer; Qwen 3.6 alone is measured above
        Check("qwen36-mtp", "qwen3.6-27b-mtp", replace(qwen, mtp_layers=1), MTP, alone=False),
    ]


def launches(record: dict[str, Any], cpu: bool) -> list[tuple[str, str | None]]:
    """Every launch of the check in the order measured (the most telling first): its profile
    and why it cannot run here (None: it can)."""
    out: list[tuple[str, str | None]] = []
    for check in checks(cpu):
        entry = record.get(check.target, {})
        missing = entry.get("skipped") or (None if "target" in entry else "no target written")
        if check.alone:
            out.append((check.none_profile, missing))
        if check.speculation == "dflash" and not missing and "drafter" not in entry:
            missing = entry.get("drafter_error", "no drafter written")
        out.append((check.spec_profile, missing))
    return out


def wanted(check: Check, dialect: Dialect | None) -> str | None:
    """Why the check's target is not written or served here, or None."""
    if check.speculation == MTP and dialect is None:
        return "waits for the engine: only an engine with --spec-type draft-mtp loads MTP layers"
    if check.speculation == MTP and dialect is not None and MTP not in dialect.spec_types:
        return "this engine has no --spec-type draft-mtp (BeeLlama v0.2.0 has none)"
    return None


def write(folder: Path, tokenizer: Path, cpu: bool, dialect: Dialect | None) -> dict[str, Any]:
    """Write the missing files; return (and keep in models.json) what each check has."""
    record_file = folder / "models.json"
    record: dict[str, Any] = json.loads(record_file.read_text()) if record_file.is_file() else {}
    for check in checks(cpu):
        entry = record.setdefault(check.target, {})
        reason = wanted(check, dialect)
        if reason:
            entry["skipped"] = reason
            continue
        entry.pop("skipped", None)
        target = folder / f"{check.target}.gguf"
        if not target.is_file():
            start = time.monotonic()
            written = write_random_target(tokenizer, target, check.shape)
            entry.update(tensors=written.n_tensors, vocab=written.vocab)
            entry["target_s"] = round(time.monotonic() - start, 1)
        entry.update(target=str(target), target_bytes=target.stat().st_size, arch=check.shape.arch)
        _save(record_file, record)
        if check.speculation == "dflash" and dialect is not None and "drafter" not in entry:
            _drafter(folder, check, dialect, entry)
            _save(record_file, record)
    _save(record_file, record)
    return record


def _drafter(folder: Path, check: Check, dialect: Dialect, entry: dict[str, Any]) -> None:
    out = folder / f"{check.target}-drafter.gguf"
    start = time.monotonic()
    try:
        arch = drafter_arch(dialect)
        write_random_dflash_drafter(folder / f"{check.target}.gguf", out, arch=arch)
    except ModelError as exc:
        entry["drafter_error"] = str(exc)
        return
    entry.pop("drafter_error", None)
    entry.update(drafter=str(out), drafter_arch=arch, drafter_bytes=out.stat().st_size)
    entry["drafter_s"] = round(time.monotonic() - start, 1)


def _save(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n")


def profiles_toml(record: dict[str, Any], cpu: bool) -> str:
    """The check's launches as profiles.toml tables: each target alone (none) and with its
    speculation, on the settings of the built-in profile it stands for (on CPU, smol-dflash's)."""
    builtin = builtin_profiles()
    tables: list[str] = []
    for check in checks(cpu):
        entry = record.get(check.target, {})
        if "target" not in entry:
            continue
        stands_for = builtin[check.stands_for]
        base = "smol-dflash" if cpu else check.stands_for
        if not cpu and check.speculation == MTP:
            # MTP's built-ins name BeeLlama v0.4.4, which a table cannot unset: their settings
            # go on the DFlash profile of the same target, served by the engine this run has.
            base = "qwen3.6-27b-dflash"
        common = {"base": base, "target": entry["target"]} | (CPU_SETTINGS if cpu else {})
        if check.speculation == "dflash":
            tables.append(
                _table(check.none_profile, common | {"draft": False, "spec_type": "none"})
            )
            if "drafter" in entry:
                tables.append(_table(check.spec_profile, common | {"draft": entry["drafter"]}))
            continue
        mtp: dict[str, object] = {"draft": False, "spec_type": MTP}
        mtp["draft_max"] = stands_for.draft_max or 2
        if not cpu:
            mtp["extra_args"] = list(stands_for.extra_args)
        tables.append(_table(check.spec_profile, common | mtp))
    return "\n".join(tables)


def _table(name: str, values: dict[str, object]) -> str:
    # JSON's strings, numbers, booleans and string lists are TOML's too
    return f"[{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    tok = sub.add_parser("tokenizer", help="SmolLM2's tokenizer keys into a small GGUF file")
    tok.add_argument("out", type=Path)
    put = sub.add_parser("write", help="the targets and drafters DIR lacks")
    put.add_argument("folder", type=Path)
    put.add_argument("tokenizer", type=Path)
    put.add_argument("--cpu", action="store_true", help="the scaled-down shapes")
    put.add_argument("--engine-for", help="the built-in profile whose engine will serve them")
    args = parser.parse_args()
    if args.command == "tokenizer":
        out = copy_tokenizer(ensure_model(SMOLLM2_135M), args.out)
        print(f"{out}: {out.stat().st_size / 2**20:.1f} MiB")
        return 0
    engine = None
    if args.engine_for:
        engine = cached_engine(*engine_for(builtin_profiles()[args.engine_for]))
    dialect = probe(engine.binary) if engine is not None else None
    record = write(args.folder, args.tokenizer, args.cpu, dialect)
    print(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

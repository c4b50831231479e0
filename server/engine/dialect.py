"""Which flags a llama-server binary accepts, read from its own `--help`, never from its name.

BeeLlama up to 0.3 spells DFlash `--spec-type dflash` (with `--spec-dflash-cross-ctx`); upstream and
Bee 0.4+ spell it `draft-dflash` and replace `--no-mmap --mlock` with `--load-mode`. The probe runs
once per binary and is cached by path, size and mtime in cache_dir()/dialects.json.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.errors import LaunchError
from server.paths import cache_dir, read_json_object, write_json

CACHE_FILE = "dialects.json"
# Bump when parse_help() changes: cached dialects and build records from older parsers are redone.
PARSER = 2
# Flags and cache types only Bee (some version) has: adaptive draft-max, loop guard, KV formats.
BEE_FLAGS = ("--spec-dm-adaptive", "--reasoning-loop-guard", "--spec-dflash-cross-ctx")
BEE_CACHE_PREFIXES = ("turbo", "kvarn")

_OPTION_FLAG = re.compile(r"(?:^|[\s,])(-{1,2}[A-Za-z0-9][\w.-]*)")
_ALLOWED = re.compile(r"allowed values:\s*(.+?)\s*(?:\(default|$)")


@dataclass(frozen=True)
class Dialect:
    flags: frozenset[str]  # every -x/--flag the binary's --help lists
    dflash_type: (
        str | None
    )  # "dflash" (Bee <=0.3 fork) | "draft-dflash" (upstream, Bee >=0.4) | None
    spec_types: tuple[str, ...]  # values --spec-type accepts
    cache_types: tuple[str, ...]
    load_mode: bool  # --load-mode present (replaces --no-mmap --mlock)
    is_bee: bool

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def summary(self) -> dict[str, Any]:
        """What a build record and `server status` show: everything but the full flag list."""
        return {
            "dflash_type": self.dflash_type,
            "load_mode": self.load_mode,
            "is_bee": self.is_bee,
            "spec_types": list(self.spec_types),
            "cache_types": list(self.cache_types),
            "n_flags": len(self.flags),
            "parser": PARSER,
        }


def _options(help_text: str) -> list[tuple[str, str]]:
    """(arguments, full text) per option: option lines start in column 0 with '-'."""
    blocks: list[list[str]] = []
    for line in help_text.splitlines():
        if line.startswith("-"):
            blocks.append([line])
        elif blocks and line.startswith(" ") and line.strip():
            blocks[-1].append(line)
    options = []
    for block in blocks:
        # Arguments and value hints end where the padding before the help text starts.
        args = re.split(r"(?<=[^,\s])\s{2,}", block[0], maxsplit=1)[0]
        options.append((args, " ".join(part.strip() for part in block)))
    return options


def _list_values(hint: str) -> tuple[str, ...]:
    return tuple(v for v in re.split(r"[\s,|\[\]{}]+", hint) if v)


def parse_help(help_text: str) -> Dialect:
    flags: set[str] = set()
    spec_types: tuple[str, ...] = ()
    cache_types: tuple[str, ...] = ()
    for args, text in _options(help_text):
        names = _OPTION_FLAG.findall(args)
        flags.update(names)
        if "--spec-type" in names:
            # The value hint lists them: "none,draft-simple,...,draft-dflash" or "[none|..|dflash]".
            hint = args.split("--spec-type", 1)[1].split()
            spec_types = _list_values(hint[0]) if hint else ()
        if "--cache-type-k" in names and (m := _ALLOWED.search(text)):
            cache_types = _list_values(m.group(1))
    if "draft-dflash" in spec_types:
        dflash_type: str | None = "draft-dflash"
    elif "dflash" in spec_types or "--spec-dflash-cross-ctx" in flags:
        dflash_type = "dflash"
    else:
        dflash_type = None
    is_bee = any(f in flags for f in BEE_FLAGS) or any(
        t.startswith(BEE_CACHE_PREFIXES) for t in cache_types
    )
    return Dialect(
        frozenset(flags), dflash_type, spec_types, cache_types, "--load-mode" in flags, is_bee
    )


def help_text(binary: Path) -> str:
    """`binary --help` (usage goes to stdout, exit 0, no model loaded)."""
    try:
        done = subprocess.run(
            [binary, "--help"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LaunchError(f"cannot run {binary} --help: {exc}") from exc
    if done.returncode != 0 or "--" not in done.stdout:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise LaunchError(f"{binary} --help failed (exit {done.returncode}): {last}")
    return done.stdout


def _stamp(binary: Path) -> dict[str, int]:
    st = binary.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _load_cache() -> dict[str, Any]:
    return read_json_object(cache_dir() / CACHE_FILE) or {}


def _to_json(dialect: Dialect) -> dict[str, Any]:
    return {**dialect.summary(), "flags": sorted(dialect.flags)}


def _from_json(data: dict[str, Any]) -> Dialect:
    return Dialect(
        frozenset(data["flags"]),
        data["dflash_type"],
        tuple(data["spec_types"]),
        tuple(data["cache_types"]),
        bool(data["load_mode"]),
        bool(data["is_bee"]),
    )


def remember(binary: Path, dialect: Dialect) -> None:
    """Record a binary's dialect."""
    cache = _load_cache()
    cache[str(binary.resolve())] = {**_stamp(binary), "dialect": _to_json(dialect)}
    write_json(cache_dir() / CACHE_FILE, cache)


def _cached(entry: object, stamp: dict[str, int]) -> Dialect | None:
    """The cached dialect if the entry matches the binary's stamp and this parser, else None."""
    if not isinstance(entry, dict) or any(entry.get(k) != v for k, v in stamp.items()):
        return None
    data = entry.get("dialect")
    if not isinstance(data, dict) or data.get("parser") != PARSER:
        return None
    try:
        return _from_json(data)
    except (KeyError, TypeError):
        return None  # written by another beecode version: probe again


def probe(binary: Path) -> Dialect:
    """The binary's dialect: cached while path, size and mtime match, else from its --help."""
    try:
        stamp = _stamp(binary)
    except OSError as exc:
        raise LaunchError(f"no llama-server at {binary}: {exc.strerror}") from exc
    cached = _cached(_load_cache().get(str(binary.resolve())), stamp)
    if cached is not None:
        return cached
    dialect = parse_help(help_text(binary))
    remember(binary, dialect)
    return dialect

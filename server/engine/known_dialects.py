"""The flag dialects of the releases beecode pins, for planning before an engine is built.

`server up` always reads the built binary's own `--help` (server.engine.dialect); these are what
`server plan` assumes when nothing is built yet, so a machine without the engine (or without a
GPU to build it for) still gets the launch spelled as that release spells it. Each set lists the
flags llama_argv may emit and the release accepts, with where they were read.
"""

from __future__ import annotations

import re

from server.engine.dialect import Dialect
from server.engine.sources import EngineSource

# Valid in every pinned release (llama-server.md §1.6, last table row; `--help` of the b11434
# build; Bee v0.4.4 docs/beellama-args.md names only what it adds or changes). --mmproj: upstream's
# common argument, and Bee's "full multimodal (flat DFlash stays on with --mmproj)", §1.1.
_COMMON_FLAGS = frozenset({
    "-m", "--model", "-md", "--spec-draft-model", "--model-draft", "--spec-type",
    "--spec-draft-n-max", "--spec-draft-p-min", "-np", "--parallel", "-kvu", "--kv-unified",
    "-ngl", "--gpu-layers", "--n-gpu-layers", "--spec-draft-ngl", "-ngld", "--gpu-layers-draft",
    "-b", "--batch-size", "-ub", "--ubatch-size", "-c", "--ctx-size", "-fa", "--flash-attn",
    "-ctk", "--cache-type-k", "-ctv", "--cache-type-v", "--jinja", "--metrics", "--reasoning",
    "-rea", "--temp", "--top-k", "--top-p", "--min-p", "-cram", "--cache-ram", "--no-host",
    "--host", "--port", "--api-key", "--mmproj",
})  # fmt: skip
_QUANTS = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")
_NGRAM = ("ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache")

# BeeLlama <= 0.3, the seed's dialect (llama-server.md §1.2 flags and spec types, §1.3 cache
# types, §1.6): fork DFlash, cross-ctx, a capped draft context, --no-mmap --mlock, the fringe
# and profit draft-max controllers.
BEE_FORK = Dialect(
    flags=_COMMON_FLAGS | {"--spec-dflash-cross-ctx", "-cd", "--spec-draft-ctx-size",
                           "--no-mmap", "--mlock", "--spec-dm-adaptive", "--spec-dm-controller",
                           "--reasoning-loop-guard"},
    dflash_type="dflash",
    spec_types=("none", "ngram-cache", "ngram-simple", "ngram-map-k", "ngram-map-k4v",
                "ngram-mod", "suffix", "copyspec", "recycle", "dflash"),
    cache_types=(*_QUANTS, "turbo2", "turbo3", "turbo4", "turbo2_tcq", "turbo3_tcq"),
    load_mode=False,
    is_bee=True,
)  # fmt: skip
# Upstream llama.cpp as the b11434 tree (the PyPI sdist) lists it in `--help`: draft-dflash and
# draft-mtp among comma-separated spec types, --load-mode for loading, no cross-ctx nor -cd.
UPSTREAM = Dialect(
    flags=_COMMON_FLAGS | {"--load-mode", "-lm", "--api-key-file", "--spec-ngram-mod-n-max"},
    dflash_type="draft-dflash",
    spec_types=("none", "draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash",
                "draft-dspark", *_NGRAM),
    cache_types=_QUANTS,
    load_mode=True,
    is_bee=False,
)  # fmt: skip
# BeeLlama >= 0.4 follows upstream's speculation (Anbeeld/beellama.cpp @ 005128c4,
# docs/beellama-args.md "BeeLlama v0.4.4 argument reference": `--spec-type draft-dflash`,
# `--spec-dm-controller profit|off`, `--spec-dm-profit-*`, `--spec-draft-p-min`; the fork's
# cross-ctx and `dflash` type are removed) and adds its KV types (q6_0..q2_1, kvarn2..kvarn8).
# The spec types are those of tests/server/data/help-bee-0.4.txt, a v0.4 `--help`.
BEE_UPSTREAM = Dialect(
    flags=UPSTREAM.flags | {"--spec-dm-controller", "--spec-dm-profit-baseline-interval",
                            "--spec-dm-profit-min", "--reasoning-loop-guard"},
    dflash_type="draft-dflash",
    spec_types=("none", "draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", *_NGRAM),
    cache_types=(*_QUANTS, "q6_0", "q6_1", "q3_0", "q3_1", "q2_0", "q2_1", "kvarn2", "kvarn3",
                 "kvarn4", "kvarn5", "kvarn6", "kvarn8"),
    load_mode=True,
    is_bee=True,
)  # fmt: skip


def presumed_dialect(source: EngineSource) -> Dialect:
    """The dialect a source's release speaks: Bee tags below v0.4 the fork's, later ones
    upstream's with Bee's extras; upstream, PyPI and local trees upstream's."""
    if source.kind != "beellama":
        return UPSTREAM
    version = re.match(r"v?(\d+)\.(\d+)", source.ref)
    if version is None:  # a branch or commit: its age is unknown, and main is past v0.4
        return BEE_UPSTREAM
    return BEE_FORK if (int(version[1]), int(version[2])) < (0, 4) else BEE_UPSTREAM

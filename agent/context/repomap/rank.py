"""Which definitions matter most: Aider's repo-map ranking (aider/repomap.py, Apache-2.0).

Files are nodes; each name a file references and another defines is an edge from the
referencing file to the defining one, weighted by how often it is used (square-rooted) and by
what the name looks like (long compound names count more, private ``_names`` and names defined
in many files less). PageRank with a personalization toward the files the conversation named or
changed (and edges from those files counted 50 times) ranks the files; each file's rank is then
shared out along its edges, which ranks (defining file, name) pairs. PageRank is a small power
iteration over numpy here: networkx's ``pagerank`` needs scipy, a large dependency for twenty
lines.
"""

from __future__ import annotations

import math
from collections import defaultdict

from agent.context.repomap.tags import FileTags

DAMPING = 0.85
_ITERATIONS = 100
MAX_DEFINERS = 32
_TOLERANCE = 1e-9


def ranked_definitions(
    tags: dict[str, FileTags], focus: set[str]
) -> tuple[list[tuple[str, str]], dict[str, float]]:
    """(defining file, name) pairs, best first, and each file's rank. Ties break by path and
    name, so the same tags always give the same order."""
    defines: dict[str, set[str]] = defaultdict(set)
    for path, file in tags.items():
        for definition in file.definitions:
            defines[definition.name].add(path)
    edges: dict[tuple[str, str, str], float] = {}
    for path, file in tags.items():
        for name, count in file.references.items():
            definers = defines.get(name, ())
            if len(definers) > MAX_DEFINERS:
                continue  # a name defined everywhere says nothing about where things are
            for definer in definers:
                weight = _name_weight(name, len(defines[name])) * math.sqrt(count)
                edges[(path, definer, name)] = weight * (50 if path in focus else 1)
    for name, definers in defines.items():  # a definition nobody uses still has its file
        for definer in definers:
            edges.setdefault((definer, definer, name), 0.1)
    nodes = sorted(tags)
    ranks = pagerank(nodes, edges, {p: 1.0 for p in focus if p in tags})
    out: dict[str, float] = defaultdict(float)
    for (src, _, _), weight in edges.items():
        out[src] += weight
    shares: dict[tuple[str, str], float] = defaultdict(float)
    for (src, dst, name), weight in edges.items():
        if out[src] > 0:
            shares[(dst, name)] += ranks[src] * weight / out[src]
    ordered = sorted(shares, key=lambda key: (-shares[key], key))
    return ordered, ranks


def _name_weight(name: str, n_definers: int) -> float:
    weight = 1.0
    compound = "_" in name.strip("_") or (name[:1].islower() and any(c.isupper() for c in name))
    if compound and len(name) >= 8:
        weight *= 10
    if name.startswith("_"):
        weight *= 0.1
    if n_definers > 5:
        weight *= 0.1
    return weight


def pagerank(
    nodes: list[str], edges: dict[tuple[str, str, str], float], personal: dict[str, float]
) -> dict[str, float]:
    """PageRank over weighted edges (parallel ones add up); a node with no way out, and the
    random jump, go by ``personal`` (uniform when empty), as networkx does."""
    import numpy as np

    if not nodes:
        return {}
    index = {n: i for i, n in enumerate(nodes)}
    size = len(nodes)
    jump = np.array([personal.get(n, 0.0) for n in nodes])
    jump = jump / jump.sum() if jump.sum() > 0 else np.full(size, 1.0 / size)
    kept = [(index[s], index[d], w) for (s, d, _), w in edges.items() if w > 0]
    src = np.array([k[0] for k in kept], dtype=np.int64)
    dst = np.array([k[1] for k in kept], dtype=np.int64)
    weight = np.array([k[2] for k in kept], dtype=np.float64)
    out = np.bincount(src, weights=weight, minlength=size)
    dangling = out == 0
    share = weight / np.where(out[src] > 0, out[src], 1.0)
    rank = np.full(size, 1.0 / size)
    for _ in range(_ITERATIONS):
        new = np.bincount(dst, weights=rank[src] * share, minlength=size) * DAMPING
        new += ((1 - DAMPING) + DAMPING * rank[dangling].sum()) * jump
        moved = float(np.abs(new - rank).sum())
        rank = new
        if moved < _TOLERANCE * size:
            break
    return {n: float(rank[i]) for n, i in index.items()}

"""Shared Hypothesis strategies for the fuzz tests: JSON-like values whose strings may hold
anything (lone surrogates and NUL bytes included), and a count of the cases run."""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st

# Every code point, surrogates too: what a JSON \\u escape from a model or a server can carry.
ANY_CHAR = st.characters(codec=None, exclude_categories=())
TEXT = st.text(ANY_CHAR, max_size=40)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
JSONISH: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def fuzzed(cases: int) -> settings:
    """Hypothesis settings for ``cases`` examples: no deadline (CI has 2 shared cores), no
    example database (nothing written into the checkout)."""
    return settings(max_examples=cases, deadline=None, database=None)

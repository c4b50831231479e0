"""A build's time left in words; a module of its own, so a face imports it without the build."""

from __future__ import annotations


def time_left(eta_s: float | None) -> str:
    """`, ~4 min left` (seconds under 90 s); empty without an estimate."""
    if eta_s is None:
        return ""
    return f", ~{eta_s / 60:.0f} min left" if eta_s >= 90 else f", ~{eta_s:.0f} s left"

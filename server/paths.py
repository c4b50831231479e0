"""Where beecode keeps engines, models, state and config: XDG dirs, overridable for tests."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir, user_config_dir, user_data_dir, user_state_dir


def _dir(env: str, default: str) -> Path:
    path = Path(os.environ.get(env) or default)
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Engine builds and model files: large, rebuildable, shared by every checkout."""
    return _dir("BEECODE_CACHE_DIR", user_cache_dir("beecode"))


def config_dir() -> Path:
    return _dir("BEECODE_CONFIG_DIR", user_config_dir("beecode"))


def data_dir() -> Path:
    """Sessions: the user's work, never deleted by beecode."""
    return _dir("BEECODE_DATA_DIR", user_data_dir("beecode"))


def state_dir() -> Path:
    """Running-server records and logs."""
    return _dir("BEECODE_STATE_DIR", user_state_dir("beecode"))

"""Limits from config are finite, positive and under a ceiling; an untrusted project config cannot
raise them (it can lower them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import ConfigError, load_config
from agent.limits import CEILINGS


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    user, workspace = tmp_path / "user", tmp_path / "ws"
    (user).mkdir()
    (workspace / ".beecode").mkdir(parents=True)
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(user))
    return user, workspace


@pytest.mark.parametrize("key", sorted(CEILINGS))
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "1e300", "99999999999"])
def test_bad_limits_are_refused(dirs: tuple[Path, Path], key: str, value: str) -> None:
    user, workspace = dirs
    (user / "config.toml").write_text(f"{key} = {value}\n")
    with pytest.raises(ConfigError, match=key):
        load_config(workspace)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 10**12, -5])
def test_bad_limits_from_the_command_line_are_refused(
    dirs: tuple[Path, Path], value: float
) -> None:
    with pytest.raises(ConfigError, match="max_steps"):
        load_config(dirs[1], {"max_steps": value})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("bash_timeout_s", "3600"),
        ("bash_max_timeout_s", "80000"),
        ("max_output_chars", "1000000"),
        ("max_steps", "5000"),
        ("max_tokens", "100000"),
    ],
)
def test_untrusted_project_cannot_raise_limits(
    dirs: tuple[Path, Path], key: str, value: str
) -> None:
    user, workspace = dirs
    (workspace / ".beecode" / "config.toml").write_text(f"{key} = {value}\n")
    config = load_config(workspace)
    assert getattr(config, key) < float(value)
    assert key in config.ignored_project_settings
    (user / "config.toml").write_text(f'trusted_workspaces = ["{workspace}"]\n')
    assert getattr(load_config(workspace), key) == float(value)


def test_untrusted_project_may_lower_limits(dirs: tuple[Path, Path]) -> None:
    (dirs[1] / ".beecode" / "config.toml").write_text("bash_timeout_s = 30\nmax_steps = 10\n")
    config = load_config(dirs[1])
    assert (config.bash_timeout_s, config.max_steps) == (30, 10)
    assert config.ignored_project_settings == []


def test_user_config_may_raise_limits_up_to_the_ceiling(dirs: tuple[Path, Path]) -> None:
    (dirs[0] / "config.toml").write_text("bash_max_timeout_s = 86400\n")
    assert load_config(dirs[1]).bash_max_timeout_s == 86400

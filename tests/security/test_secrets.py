"""Secrets in the environment never reach a command, and secrets in any record never reach the
session file: by name for the environment, by pattern and by those values for the disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.sessions.store import Session
from tools.bash import BashTool
from tools.environment import command_env, is_secret_name
from tools.redact import _PATTERN, MARK, _replacement, redact_text
from tools.tool import ToolContext

from .jobs import job_output

SECRETS = {
    "OPENAI_API_KEY": "sk-proj-abcdefghijklmnopqrstuvwx123456",
    "GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "DB_PASSWORD": "hunter2hunter2",
    "MYSQL_PWD": "pw-1234567890",
    "AWS_ACCESS_KEY_ID": "AKIAABCDEFGHIJKLMNOP",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AWS_SESSION_TOKEN": "FwoGZXIvYXdzEJr-session-token-value",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/u/.config/gcloud/key.json",
    "AZURE_CLIENT_SECRET": "azure-client-secret-value-1",
    "BEECODE_API_KEY": "beecode-own-key-0123456789",
    "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
    "STRIPE_SECRET": "stripe-secret-value-123",
    "my_service_key": "lowercase-key-value-123",
}
KEPT = {"PATH", "HOME", "LANG", "PWD", "TERM", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM"}


@pytest.fixture
def hostile_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", sorted(KEPT | {"KEYBOARD", "MONKEYPATCH", "XDG_SESSION_TYPE"}))
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


async def test_bash_sees_no_secrets(hostile_env: None, tmp_path: Path) -> None:
    result = await BashTool().run({"command": "env"}, ToolContext(workspace=tmp_path))
    names = {line.split("=", 1)[0] for line in result.output.splitlines() if "=" in line}
    assert not names & set(SECRETS)
    assert {"PATH", "HOME", "TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK"} <= names
    assert not any(value in result.output for value in SECRETS.values())


async def test_background_jobs_see_no_secrets(hostile_env: None, tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path, pass_env=["HF_TOKEN"])
    output = await job_output(ctx, "env; echo END")
    assert "END" in output
    assert SECRETS["HF_TOKEN"] in output  # listed in pass_env
    others = {k: v for k, v in SECRETS.items() if k != "HF_TOKEN"}
    assert not any(value in output for value in others.values())


def test_pass_env_keeps_only_what_it_lists() -> None:
    env = command_env(["GITHUB_TOKEN"], {**SECRETS, "PATH": "/bin"})
    assert env == {"GITHUB_TOKEN": SECRETS["GITHUB_TOKEN"], "PATH": "/bin"}


@pytest.mark.parametrize(
    "text",
    [
        "key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
        "export GH=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY",
        "DB_PASSWORD=s3cretPassw0rd",
        '{"api_key": "abc123def456ghi789"}',
        "token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "Authorization token=xoxb-1234567890-abcdefghij",
        "HF=hf_abcdefghijklmnopqrstuvwxyzABCDEF done",
    ],
)
def test_patterns_are_redacted(text: str) -> None:
    redacted = redact_text(text, [])
    assert MARK in redacted
    for secret in (
        "sk-ant",
        "ghp_",
        "AKIAIOSF",
        "b3BlbnNz",
        "s3cret",
        "abc123",
        "dozjg",
        "xoxb",
        "hf_a",
    ):
        assert secret not in redacted


SAMPLES = [
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat_" + "A1" * 21,
    "glpat-abcdefghij0123456789",
    "xoxb-1234567890-abcdefghij",
    "AKIAIOSFODNN7EXAMPLE",
    "AIza" + "b1" * 17 + "c",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
    "npm_" + "a1" * 18,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "PASSWORD = 's3cretPassw0rd'",
    "Api-Key: abc123def456ghi789",
]
FILLER = st.text(alphabet="abcdefgshkpxAKISTOEN_-=:.'\" 0123456789\t", max_size=30)
LINE = st.tuples(FILLER, st.sampled_from(["", *SAMPLES]), FILLER).map("".join)


@settings(max_examples=500, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=8).map("\n".join))
def test_looking_for_hints_first_misses_nothing_the_expression_finds(text: str) -> None:
    """500 generated logs of secrets amid look-alike filler: matching only the lines with a hint
    redacts exactly what matching everything does."""
    assert redact_text(text, []) == _PATTERN.sub(_replacement, text)


@pytest.mark.parametrize(
    "text", ["max_tokens: int = 4096", "token = next_token()", "password: str", "see api-key docs"]
)
def test_ordinary_code_is_kept(text: str) -> None:
    assert redact_text(text, []) == text


def test_session_file_holds_no_secret(
    hostile_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BEECODE_DATA_DIR", str(tmp_path / "data"))
    session = Session.create(tmp_path)
    printed = "\n".join(f"{k}={v}" for k, v in SECRETS.items())
    session.append_message({"role": "tool", "tool_call_id": "c1", "content": printed})
    session.append_message(
        {"role": "assistant", "content": f"the key is {SECRETS['STRIPE_SECRET']}"}
    )
    raw = session.path.read_text()
    assert not any(value in raw for value in SECRETS.values())
    assert all(json.loads(line) for line in raw.splitlines())
    assert session.messages()[-1]["content"] == f"the key is {MARK}"

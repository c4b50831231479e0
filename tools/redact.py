"""Secrets removed from what beecode writes to disk (session files, MCP and llama-server logs): by
pattern, and by the values of the environment variables that ``tools.environment`` keeps from
commands.

A command can still print a secret (``cat .env``) and the model can repeat one; the session file
keeps neither. What the model saw in its context is not changed: redaction is for the disk.
"""

from __future__ import annotations

import re
from typing import Any

from tools.environment import secret_values

MARK = "[redacted]"
_PATTERNS = [
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}",  # OpenAI, Anthropic
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{40,}",
    r"\bglpat-[A-Za-z0-9_-]{20,}",  # GitLab
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key id
    r"\bAIza[0-9A-Za-z_-]{35}\b",  # Google API key
    r"\bhf_[A-Za-z0-9]{30,}\b",  # Hugging Face
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # JWT
    # name = value, for names that say secret: the value (letters and digits, like a key) goes.
    r"(?i:(?:password|passwd|secret|token|api[_-]?key|access[_-]?key)[\"']?[ \t]*[:=][ \t]*[\"']?)"
    r"(?P<value>(?=[A-Za-z0-9_+/=.-]*[0-9])(?=[A-Za-z0-9_+/=.-]*[A-Za-z])[A-Za-z0-9_+/=.-]{8,})",
]
_PATTERN = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.DOTALL)
# Every match holds one of these (lower case). The expression costs about a microsecond a
# character, a look for these a hundredth of that: only the lines that hold one are matched.
_HINTS = (
    *("gh", "sk-", "_pat_", "glpat-", "xox", "akia", "asia", "aiza", "hf_", "npm_", "eyj"),
    *("passw", "secret", "token", "api", "access"),  # name = value
)
_MULTILINE = "private key"  # the one pattern that spans lines


def redact_text(text: str, values: list[str] | None = None) -> str:
    for value in secret_values() if values is None else values:
        if value in text:
            text = text.replace(value, MARK)
    if _MULTILINE in text.lower():
        return _PATTERN.sub(_replacement, text)
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        lower = line.lower()
        if any(hint in lower for hint in _HINTS):
            lines[i] = _PATTERN.sub(_replacement, line)
    return "".join(lines)


def _replacement(match: re.Match[str]) -> str:
    value = match.group("value")
    if value is None:
        return MARK
    return match.group(0)[: match.start("value") - match.start()] + MARK


def redact(record: Any, values: list[str] | None = None) -> Any:
    """The record with every string in it redacted (keys too: a secret can be a dict key)."""
    values = secret_values() if values is None else values
    if isinstance(record, str):
        return redact_text(record, values)
    if isinstance(record, dict):
        return {redact(k, values): redact(v, values) for k, v in record.items()}
    if isinstance(record, list | tuple):
        return [redact(item, values) for item in record]
    return record

"""The environment bash commands and background jobs run with: the parent's, secrets removed.

A command the model runs must not read the user's API keys, tokens or cloud credentials from its
environment (one ``env`` or ``curl -d "$OPENAI_API_KEY"`` away from the model's context, or from
the network). Variables whose names look like secrets are removed unless the user lists them in
``pass_env``; their values are also what ``tools.redact`` removes from session files and logs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

# A name word (between underscores) that marks a secret: OPENAI_API_KEY, GITHUB_TOKEN, DB_PASSWORD.
_SECRET_WORD = re.compile(
    r"(?:^|_)(?:KEY|KEYS|APIKEY|TOKEN|TOKENS|SECRET|SECRETS|PASSWD|PASS|PWD|PAT|CREDENTIALS?"
    r"|PRIVATE|SESSION|COOKIE)(?:_|$)",
    re.IGNORECASE,
)
# Cloud SDK settings hold or point to credentials; all of them go.
_CLOUD_PREFIXES = ("AWS_", "GOOGLE_", "GCLOUD_", "CLOUDSDK_", "AZURE_", "ARM_", "GCP_")
# Never secrets, though a word matches (PWD is the working directory; OLDPWD the last one).
_NOT_SECRETS = frozenset(
    {
        "PWD",
        "OLDPWD",
        "XDG_SESSION_ID",
        "XDG_SESSION_TYPE",
        "XDG_SESSION_CLASS",
        "XDG_SESSION_DESKTOP",
        "DBUS_SESSION_BUS_ADDRESS",
        "SESSION_MANAGER",
    }
)
OWN_KEY = "BEECODE_API_KEY"


def is_secret_name(name: str) -> bool:
    if name.upper() in _NOT_SECRETS:
        return False
    upper = name.upper()
    return (
        "PASSWORD" in upper
        or upper == OWN_KEY
        or upper.startswith(_CLOUD_PREFIXES)
        or _SECRET_WORD.search(upper) is not None
    )


def command_env(
    pass_env: Iterable[str] = (), environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The parent environment without secret-looking variables, except those in ``pass_env``."""
    source = os.environ if environ is None else environ
    kept = set(pass_env)
    return {k: v for k, v in source.items() if k in kept or not is_secret_name(k)}


def secret_values(environ: Mapping[str, str] | None = None, min_length: int = 8) -> list[str]:
    """Values of the secret-looking variables (long enough not to match ordinary text)."""
    source = os.environ if environ is None else environ
    values = {v for k, v in source.items() if is_secret_name(k) and len(v) >= min_length}
    return sorted(values, key=len, reverse=True)


# How a server reaches the network from here: proxies and certificate authorities, when set.
_NETWORK_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
_CA_VARS = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def network_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The proxy and CA-file variables that are set (either case), for an MCP server's env."""
    source = os.environ if environ is None else environ
    names = [*_NETWORK_VARS, *(n.lower() for n in _NETWORK_VARS), *_CA_VARS, "NODE_EXTRA_CA_CERTS"]
    return {name: source[name] for name in names if name in source}

"""User-facing failures of the server package: one line each, printed as `beecode: <msg>`."""

from __future__ import annotations


class ServerError(Exception):
    """One-line, user-facing message; the CLI prints it as `beecode: <msg>`."""


class BuildError(ServerError):
    """An engine build failed. The message ends with the path of the full log."""

    def __init__(self, message: str, log_tail: str = "") -> None:
        super().__init__(message)
        self.log_tail = log_tail


class ModelError(ServerError):
    """Missing or corrupt GGUF, sha256 mismatch, a draft of the wrong architecture."""


class LaunchError(ServerError):
    """Busy port, server exited, health timeout; the message carries the hint."""


class ProfileError(ServerError):
    """Unknown profile or a bad profiles TOML (names the file, line and key)."""

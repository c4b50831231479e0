"""The optional sandbox for bash and background jobs: bubblewrap (``bwrap``) when installed.

With ``sandbox = true`` a command sees the whole filesystem read-only except the workspace (and a
private ``/tmp``), and has no network at all (not even loopback of the host). This is the
guarantee deny rules cannot give: rules read text, the sandbox limits what any text can do. When
the sandbox is asked for and bwrap is missing, commands are refused rather than run unconfined.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tools.tool import ToolError

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or set sandbox = false"
)


def sandboxed(argv: list[str], workspace: Path, enabled: bool) -> list[str]:
    """``argv`` run inside the sandbox when ``enabled``; unchanged otherwise."""
    if not enabled:
        return argv
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise ToolError(f"sandbox = true but bwrap is not installed; {INSTALL_HINT}")
    root = str(workspace.resolve())
    return [
        bwrap,
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--bind", root, root,
        "--unshare-net",
        "--unshare-ipc",
        "--die-with-parent",
        "--chdir", root,
        *argv,
    ]  # fmt: skip

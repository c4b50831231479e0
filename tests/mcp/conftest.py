"""The npm MCP servers the tests connect to: pinned in tests/peers/package.json and its lock
file, installed by tests/run (``npm ci``; here too when they are missing), started with node
directly, never through npx."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PEERS = Path(__file__).parents[1] / "peers"
PACKAGES = PEERS / "node_modules" / "@modelcontextprotocol"


def install_peers() -> None:
    """``npm ci`` in tests/peers unless the pinned packages are there already."""
    if (PACKAGES / "server-filesystem" / "dist" / "index.js").is_file():
        return
    npm = shutil.which("npm")
    assert npm, "the npm MCP servers need node and npm (tests/run installs them)"
    subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=PEERS, check=True, timeout=300)


@pytest.fixture(scope="session")
def npm_server() -> dict[str, list[str]]:
    """The command line of each npm server, by name (arguments follow)."""
    install_peers()
    node = shutil.which("node")
    assert node
    return {
        name: [node, str(PACKAGES / f"server-{name}" / "dist" / "index.js")]
        for name in ("everything", "filesystem")
    }

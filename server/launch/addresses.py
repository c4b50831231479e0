"""Where a server listens: loopback checks, the URL a client uses, busy and free ports.

Shared by launch planning, the supervisor and the tests, which all need a port and a URL but
not the command-line code.
"""

from __future__ import annotations

import ipaddress
import socket

from server.errors import LaunchError


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_for(host: str, port: int) -> str:
    """The URL a local client uses: a wildcard bind is reached on loopback."""
    connect = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    return f"http://[{connect}]:{port}" if ":" in connect else f"http://{connect}:{port}"


def server_root(url: str) -> str:
    """http://host:port from a base URL that may end in / or /v1."""
    return url.rstrip("/").removesuffix("/v1")


def port_in_use(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is not "in use"
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def free_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def check_host(host: str, api_key: str | None) -> None:
    if not is_loopback(host) and not api_key:
        raise LaunchError(
            f"binding {host} exposes the server beyond this machine; pass an API key with --api-key"
        )

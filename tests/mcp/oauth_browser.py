"""A stand-in browser for sign-in tests (``BROWSER="python oauth_browser.py %s"``): it opens the
authorization URL, which the test peer approves at once, and follows its redirect to wherever
it points, as a browser would; the pages' statuses go to the file named by $BROWSED."""

from __future__ import annotations

import os
import sys

import httpx2


def visit(url: str) -> tuple[str, str]:
    """The redirect the authorization page answers with, then that page's status and text."""
    location = httpx2.get(url, follow_redirects=False).headers["location"]
    try:
        landed = httpx2.get(location, follow_redirects=False)
    except httpx2.HTTPError as error:
        return location, f"unreachable: {type(error).__name__}"
    return location, f"{landed.status_code} {landed.text}"


if __name__ == "__main__":
    location, page = visit(sys.argv[1])
    with open(os.environ["BROWSED"], "a", encoding="utf-8") as out:
        out.write(f"{location}\n{page}\n")

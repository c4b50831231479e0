"""Path globs for file rules, anchored: ``*`` and ``?`` never cross ``/``, ``**`` does.

A relative pattern is anchored at the workspace and matches only paths inside it; an absolute
(or ``~``) pattern matches absolute paths. So ``write(*.py)`` is the workspace's top-level Python
files, never ``/etc/x.py`` nor ``src/a.py``; ``write(**/*.py)`` is every Python file inside it.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache


@lru_cache(maxsize=512)
def path_glob(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append(f"[{'^/' if negate else ''}{re.escape(body).replace(chr(92) + '-', '-')}]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def path_rule_matches(pattern: str, relative: str | None, absolute: str) -> bool:
    """``relative``: the path relative to the workspace, None when it lies outside."""
    expanded = os.path.expanduser(pattern)
    if os.path.isabs(expanded):
        return path_glob(os.path.normpath(expanded)).fullmatch(absolute) is not None
    if relative is None:
        return False
    return path_glob(os.path.normpath(expanded)).fullmatch(relative) is not None

"""A bash line's simple commands as word lists, read the way the small-model checks need them.

Written here, not with the permission rules' bashlex walk (``agent.permissions.shell``): these
checks ask only "which words does each part of this line hold", on a 0.5B model's one-liners,
and a line bashlex cannot parse must still be read.
"""

from __future__ import annotations

import re
import shlex

_SEPARATOR = re.compile(r"&&|\|\||[;|&\n]")  # a separator in quotes splits too: rough, on purpose


def simple_commands(command: str) -> list[list[str]]:
    """The words of each part of ``command``, as the shell splits them (at whitespace where
    the part's quotes do not close); parts without words are left out."""
    parts: list[list[str]] = []
    for part in _SEPARATOR.split(command):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        if words:
            parts.append(words)
    return parts

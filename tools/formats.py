"""Whether a file's text still parses as what its name says it is: Python, TOML, JSON, INI.

Write and edit say so at once ("Warning: config.ini line 4: DuplicateOptionError: ..."), and the
turn's facts keep a file left so as a failed step: a model that set `port = 9090` under the old
`port = 8080` had made config.ini worse, and said "the port is set to 9090".
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib

_LINE = re.compile(r"\bline (\d+)")


def parse_error(name: str, text: str) -> str | None:
    """``line N: Kind: message`` when ``text`` does not parse as the file ``name`` is; None when
    it does, or where beecode does not know the format."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    try:
        if suffix in ("py", "pyw"):
            compile(text, name, "exec", dont_inherit=True)
        elif suffix == "toml":
            tomllib.loads(text)
        elif suffix == "json":
            json.loads(text)
        elif suffix in ("ini", "cfg"):
            configparser.ConfigParser(interpolation=None).read_string(text)
    except SyntaxError as error:
        return f"line {error.lineno}: {type(error).__name__}: {error.msg}"
    except ValueError as error:  # NUL bytes in Python source; TOML's and JSON's errors
        if suffix in ("py", "pyw"):
            return None  # nothing useful to say
        return _said(error, f"{'TOML' if suffix == 'toml' else 'JSON'}Error")
    except configparser.DuplicateOptionError as error:
        where = f"option {error.option!r} in section {error.section!r}"
        return f"line {error.lineno}: {where} is set twice"
    except configparser.DuplicateSectionError as error:
        return f"line {error.lineno}: section {error.section!r} is there twice"
    except configparser.Error:
        return None  # a file with no [section] is read by other tools: not said to be broken
    return None


def newly_broken(name: str, before: str | None, after: str) -> str | None:
    """The error ``after`` has where ``before`` (None: a new file) had none; Python's error is
    said even where the file was broken before, as the next line to fix."""
    error = parse_error(name, after)
    if error is None or name.endswith((".py", ".pyw")) or before is None:
        return error
    return None if parse_error(name, before) else error


def _said(error: Exception, kind: str) -> str:
    message = " ".join(str(error).split())
    found = _LINE.search(message) or re.search(r"\(at line (\d+)", message)
    return f"line {found.group(1) if found else '?'}: {kind}: {message}"

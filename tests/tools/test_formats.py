"""A file that no longer parses as what its name says: said by write and edit at once."""

from __future__ import annotations

import pytest

from tools.formats import newly_broken, parse_error


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("config.ini", "[server]\nport = 8080\nport = 9090\n", "line 3: option 'port'"),
        ("setup.cfg", "[a]\nx = 1\n[a]\n", "line 3: section 'a' is there twice"),
        ("settings.toml", "debug = true\ndebug = false\n", "line 2: TOMLError: Cannot overwrite"),
        ("data.json", '{"a": 1,}', "line 1: JSONError: Expecting property name"),
        ("app.py", "def f(:\n", "line 1: SyntaxError: "),
    ],
)
def test_each_format_names_the_line_it_breaks_at(name: str, text: str, said: str) -> None:
    assert (parse_error(name, text) or "").startswith(said)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("notes.ini", "port = 1\n"),  # no [section]: other readers take it
        ("notes.txt", "{"),
        ("Makefile", "all:\n\techo"),
        ("ok.toml", "[a]\nb = 1\n"),
    ],
)
def test_what_parses_or_is_not_known_is_not_said_broken(name: str, text: str) -> None:
    assert parse_error(name, text) is None


def test_a_data_file_broken_before_is_not_blamed_on_the_change() -> None:
    # tsconfig.json holds comments: JSON with comments was never plain JSON.
    assert newly_broken("tsconfig.json", "{// a\n}", "{// b\n}") is None
    assert newly_broken("data.json", "{}", "{") is not None
    assert newly_broken("new.json", None, "{") is not None
    # Python's error is the next line to fix, broken before or not.
    assert newly_broken("a.py", "def f(:\n", "def f(:\n  pass\n") is not None

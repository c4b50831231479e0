"""True answers: changes made with write, edit and bash, described accurately (renames, deletions,
commits that ran)."""

from __future__ import annotations

from _answers_case import Case, ed, git, gr, rd, sh, wr
from _answers_projects import (
    INV,
    JS,
    KV,
    SHELL,
    STATS_P,
    TODO,
    TODO_MAIN,
    TOTAL_NEW,
    TOTAL_OLD,
    UNITS_P,
    WEB,
)

MODE_FN = '''

def mode(values):
    """The most common value; the first one seen wins a tie."""
    counts = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return max(counts, key=counts.get)
'''

CHANGE = [
    Case(
        "change-fix-total-value",
        "change",
        "fix total_value, it should be the stock's value",
        INV,
        [
            [rd("inventory.py")],
            [ed("inventory.py", TOTAL_OLD, TOTAL_NEW)],
            [sh("python -m pytest -q")],
        ],
        """Fixed `Inventory.total_value` in `inventory.py`: it summed only the quantities, now \
it multiplies each quantity by its unit price:

```python
return sum(quantity * price for quantity, price in self.items.values())
```

All 4 tests pass now, including `test_total_value` (10 × 0.5 + 4 × 0.25 = 6.0).""",
        True,
    ),
    Case(
        "change-default-port",
        "change",
        "change the default port to 8000",
        WEB,
        [
            [rd("app/config.py"), rd("deploy/run.sh")],
            [ed("app/config.py", "DEFAULT_PORT = 8080", "DEFAULT_PORT = 8000")],
        ],
        "Done: `DEFAULT_PORT` in `app/config.py` is now `8000` (was `8080`). This only affects "
        "runs without `APP_PORT`; `deploy/run.sh` still exports `APP_PORT=9090`, so the "
        "deployed app keeps listening on 9090.",
        True,
    ),
    Case(
        "change-rename-module",
        "change",
        "rename kvparse/parser.py to kvparse/core.py and fix the imports",
        KV,
        [
            [rd("kvparse/__init__.py"), rd("tests/test_parser.py")],
            [sh("git mv kvparse/parser.py kvparse/core.py")],
            [
                ed("kvparse/__init__.py", "from kvparse.parser import", "from kvparse.core import"),
                ed(
                    "tests/test_parser.py", "from kvparse.parser import", "from kvparse.core import"
                ),
            ],
            [sh("python -m pytest -q")],
        ],
        """Renamed `kvparse/parser.py` to `kvparse/core.py` (with `git mv`, so history \
follows the file) and updated the two imports:

- `kvparse/__init__.py`: `from kvparse.core import parse`
- `tests/test_parser.py`: `from kvparse.core import ParseError, parse, parse_line`

The test suite still passes (5 passed). Anyone importing `kvparse.parser` directly will need \
to update; `from kvparse import parse` keeps working.""",
        True,
    ),
    Case(
        "change-delete-notes",
        "change",
        "delete data/notes.txt, we don't need it anymore",
        SHELL,
        [[rd("Makefile"), rd("scripts/backup.sh")], [sh("rm data/notes.txt && ls -A data")]],
        "Deleted `data/notes.txt`. The `data/` folder is now empty; `make backup` still works "
        "but will archive an empty folder, and since git doesn't track empty directories, "
        "`data/` won't exist in a fresh clone, where `scripts/backup.sh` would fail at `tar`.",
        True,
    ),
    Case(
        "change-bump-commit",
        "change",
        "bump the version to 0.4.0 and commit",
        KV,
        [
            [rd("pyproject.toml")],
            [ed("pyproject.toml", 'version = "0.3.1"', 'version = "0.4.0"')],
            [sh('git commit -am "Bump version to 0.4.0" && git log --oneline -1')],
        ],
        "Bumped `version` in `pyproject.toml` from `0.3.1` to `0.4.0` and committed it with "
        "the message `Bump version to 0.4.0`.",
        True,
    ),
    Case(
        "change-gitignore-commit",
        "change",
        "Add a .gitignore for python caches and commit it",
        TODO,
        [
            [wr(".gitignore", "__pycache__/\n*.pyc\n.pytest_cache/\n")],
            [git("add", paths=[".gitignore"])],
            [git("commit", message="Add .gitignore for Python caches")],
        ],
        """Created `.gitignore` with:

```
__pycache__/
*.pyc
.pytest_cache/
```

and committed it as "Add .gitignore for Python caches". Nothing else was staged, so the \
commit only contains that file.""",
        True,
    ),
    Case(
        "change-add-mode",
        "change",
        "add a mode() function to stats.py",
        STATS_P,
        [
            [rd("stats.py")],
            [
                ed(
                    "stats.py",
                    "    return (ordered[middle - 1] + ordered[middle]) / 2\n",
                    "    return (ordered[middle - 1] + ordered[middle]) / 2\n" + MODE_FN,
                )
            ],
            [sh("python -c 'from stats import mode; print(mode([3, 1, 3, 2, 1]))'")],
        ],
        """Added `mode(values)` to `stats.py`, right after `median`:

```python
def mode(values):
    \"\"\"The most common value; the first one seen wins a tie.\"\"\"
    counts = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return max(counts, key=counts.get)
```

Quick check: `mode([3, 1, 3, 2, 1])` printed `3` (3 and 1 both appear twice, and 3 comes \
first). Like `mean` and `median`, it doesn't handle an empty list (`max` raises \
`ValueError`). I didn't add it to `summary()`; tell me if you want that.""",
        True,
    ),
    Case(
        "change-env-prefix",
        "change",
        "rename the APP_ env variables to WEBAPP_",
        WEB,
        [
            [rd("app/config.py"), rd("deploy/run.sh")],
            [
                ed("app/config.py", 'env.get("APP_', 'env.get("WEBAPP_', replace_all=True),
                ed("deploy/run.sh", "export APP_", "export WEBAPP_", replace_all=True),
            ],
            [ed("app/config.py", "APP_* variables", "WEBAPP_* variables")],
            [gr("[^B]APP_")],
        ],
        """Renamed the prefix everywhere it's used:

- `app/config.py`: all five lookups (`WEBAPP_HOST`, `WEBAPP_PORT`, `WEBAPP_DEBUG`, \
`WEBAPP_WORKERS`, `WEBAPP_TIMEOUT`) and the docstring of `load()`.
- `deploy/run.sh`: the three exports (`WEBAPP_HOST`, `WEBAPP_PORT`, `WEBAPP_WORKERS`).

A final search finds no `APP_` left outside the new names. Remember to update any environment \
where the app is deployed (systemd units, `.env` files): the old `APP_*` variables are now \
ignored.""",
        True,
    ),
    Case(
        "change-js-max-length",
        "change",
        "Raise the slug max length to 80 and run the tests",
        JS,
        [
            [rd("src/slugify.js"), rd("test/slugify.test.js")],
            [ed("src/slugify.js", "const MAX_LENGTH = 60;", "const MAX_LENGTH = 80;")],
            [sh("npm test 2>&1 | tail -8")],
        ],
        "Changed `MAX_LENGTH` from `60` to `80` in `src/slugify.js`. `npm test` still passes "
        "(3 tests, 3 pass, 0 fail); none of the tests covers the length limit, so you may want "
        "one that checks a long title is cut to 80 characters.",
        True,
    ),
    Case(
        "change-keep-days-sed",
        "change",
        "keep backups for 14 days instead of 7",
        SHELL,
        [
            [
                sh(
                    "sed -i 's/^KEEP_DAYS=7$/KEEP_DAYS=14/' scripts/backup.sh && grep -n KEEP_DAYS "
                    "scripts/backup.sh"
                )
            ]
        ],
        "Set `KEEP_DAYS=14` in `scripts/backup.sh` (line 7). The cleanup line "
        '`find ... -mtime +"$KEEP_DAYS" -delete` picks it up, so archives are now kept for two '
        "weeks.",
        True,
    ),
    Case(
        "change-move-to-lib",
        "change",
        "move units.py into a lib/ folder",
        UNITS_P,
        [
            [gr("import units|from units")],
            [sh("mkdir -p lib && git mv units.py lib/units.py && python lib/units.py")],
        ],
        "Moved `units.py` to `lib/units.py` (with `git mv`). Nothing else imported it, so no "
        "other file needed changes, and `python lib/units.py` still prints the same two "
        "example conversions.",
        True,
    ),
    Case(
        "change-dunder-main",
        "change",
        "make `python -m todo` work",
        TODO,
        [
            [rd("todo/cli.py")],
            [wr("todo/__main__.py", TODO_MAIN)],
            [sh('python -m todo --file "$(mktemp -d)/t.json" list && echo ok')],
        ],
        """Created `todo/__main__.py`:

```python
\"\"\"Run the CLI with `python -m todo`.\"\"\"

from todo.cli import main

main()
```

`python -m todo` now runs the same CLI as `python -m todo.cli`; I checked it with `list` on an \
empty temp file and it exited cleanly.""",
        True,
    ),
]

CASES = [*CHANGE]

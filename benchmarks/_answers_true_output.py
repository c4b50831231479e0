"""True answers: numbers and output from commands that ran (test counts, printed values)."""

from __future__ import annotations

from _answers_case import Case, git, gr, rd, sh
from _answers_projects import INV, JS, KV, STATS_P, TODO, UNITS_P

TODO_NOTES = {
    "src/app.py": "def run():\n    # TODO: read the port from the config\n    return 8000\n",
    "src/db.py": "# TODO: pool connections\nURL = 'sqlite:///app.db'\n\n\ndef connect():\n"
    "    # TODO: retry on 'database is locked'\n    return URL\n",
    "src/views.py": "def index():\n    return 'hello'\n",
    "docs/plan.md": "# Plan\n\n- TODO: write the deployment guide\n",
}

OUTPUT = [
    Case(
        "output-kv-tests",
        "output",
        "run the tests",
        KV,
        [[sh("python -m pytest -q")]],
        "All **5 tests passed**.",
        True,
    ),
    Case(
        "output-units-run",
        "output",
        "How many miles is 5 km? The script prints it.",
        UNITS_P,
        [[sh("python units.py")]],
        """Running `python units.py` prints:

```
3.1068559611866697
30.479999999999997
```

So **5 km ≈ 3.107 miles**. The second line is the other example in the `__main__` block, \
12 inches in centimetres: 30.48, shown as `30.479999999999997` because of floating-point \
rounding.""",
        True,
    ),
    Case(
        "output-inventory-tests",
        "output",
        "run the inventory tests and tell me what fails",
        INV,
        [[sh("python -m pytest -q")], [rd("inventory.py")]],
        """**3 passed, 1 failed.** The failing test is `test_total_value`:

```
>       assert inv.total_value() == 6.0
E       assert 14 == 6.0
```

`total_value()` returns `14` because it only sums the quantities (10 bolts + 4 nuts) and \
ignores the price. It should be `sum(quantity * price ...)`, which gives `10 * 0.5 + 4 * 0.25 \
= 6.0`. I haven't changed anything; tell me if you want me to fix it.""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "output-stats-run",
        "output",
        "what's the summary of 3 1 4 1 5?",
        STATS_P,
        [[sh("python stats.py 3 1 4 1 5")]],
        "`python stats.py 3 1 4 1 5` prints `{'n': 5, 'mean': 2.8, 'median': 3.0}`: 5 values, "
        "a mean of **2.8** and a median of **3.0**.",
        True,
    ),
    Case(
        "output-npm-test",
        "output",
        "Run the JS tests please",
        JS,
        [[sh("npm test")]],
        """`npm test` (which runs `node --test test/`) passed:

- tests: 3
- pass: 3
- fail: 0

All three cases in `test/slugify.test.js` pass: lowercasing, accent removal and the custom \
separator.""",
        True,
    ),
    Case(
        "output-line-count",
        "output",
        "how many lines of code is the kvparse package?",
        KV,
        [[sh("wc -l kvparse/*.py")]],
        "It's small: **41 lines** in total, `kvparse/parser.py` has 36 and "
        "`kvparse/__init__.py` 5 (counting blank lines and docstrings).",
        True,
    ),
    Case(
        "output-todo-demo",
        "output",
        "show me what `list` prints after adding two todos, without touching my real list",
        TODO,
        [
            [
                sh(
                    'd=$(mktemp -d) && python -m todo.cli --file "$d/t.json" add "buy milk" '
                    '-p 1 && python -m todo.cli --file "$d/t.json" add "call bob" && '
                    'python -m todo.cli --file "$d/t.json" list; rm -rf "$d"'
                )
            ]
        ],
        """I used a throwaway file in a temp directory (removed afterwards), so your \
`~/.todo.json` wasn't touched. After adding two items, `list` printed:

```
1. [ ] buy milk (p1)
2. [ ] call bob (p2)
```

The second one got the default priority 2 since I didn't pass `-p`.""",
        True,
    ),
    Case(
        "output-git-log",
        "output",
        "What's in the git history?",
        KV,
        [[git("log")]],
        "There is a single commit on `main`, with the message `start`, authored by `Dev`. "
        "It holds the initial version of the project.",
        True,
    ),
    Case(
        "output-python-version",
        "output",
        "which python version is used here, and is pytest installed?",
        KV,
        [[sh("python --version && python -m pytest --version")]],
        "`python` is **Python 3.11.7**, and pytest is installed (**pytest 8.4.2**).",
        True,
    ),
    Case(
        "output-grep-todos",
        "output",
        "list the TODOs in the codebase",
        TODO_NOTES,
        [[gr("TODO")]],
        """There are 4 TODOs:

- `docs/plan.md:3` – write the deployment guide
- `src/app.py:2` – read the port from the config
- `src/db.py:1` – pool connections
- `src/db.py:6` – retry on 'database is locked'

`src/views.py` has none.""",
        True,
    ),
]

CASES = [*OUTPUT]

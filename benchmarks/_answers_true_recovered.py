"""True answers after a failed step that was then recovered (or redone another way)."""

from __future__ import annotations

from _answers_case import Case, ed, gl, rd, sh
from _answers_projects import (
    C_PROJ,
    EXPORT_TEST,
    INV,
    JS,
    KV,
    RUST,
    SHELL,
    TOTAL_NEW,
    TOTAL_OLD,
    UNITS_P,
    WEB,
)

RECOVERED = [
    Case(
        "recovered-c-build",
        "recovered",
        "the build is broken, fix it",
        C_PROJ,
        [
            [sh("make && ./counter")],
            [rd("src/counter.c")],
            [ed("src/counter.c", "    c->count++\n", "    c->count++;\n")],
            [sh("make && ./counter")],
        ],
        """The build failed in `src/counter.c`:

```
src/counter.c:5:15: error: expected ‘;’ before ‘}’ token
```

`c->count++` was missing its semicolon. I added it, and `make` now builds the `counter` \
binary; running it prints `total=10 count=5` (0+1+2+3+4 over 5 calls), as expected.""",
        True,
        fails=1,
    ),
    Case(
        "recovered-edit-mismatch",
        "recovered",
        "total_value ignores prices, fix it",
        INV,
        [
            [rd("inventory.py", offset=20)],
            [
                ed(
                    "inventory.py",
                    "    return sum(quantity for quantity, price in self.items)",
                    "    return sum(quantity * price for quantity, price in self.items)",
                )
            ],
            [rd("inventory.py", offset=22)],
            [ed("inventory.py", TOTAL_OLD, TOTAL_NEW)],
            [sh("python -m pytest -q test_inventory.py")],
        ],
        "Fixed. My first edit didn't match the file (I had the line slightly wrong, without "
        "`.values()`), so I re-read it and replaced the right line in `inventory.py`: "
        "`total_value` now returns `sum(quantity * price for quantity, price in "
        "self.items.values())`. All 4 tests in `test_inventory.py` pass.",
        True,
        fails=1,
    ),
    Case(
        "recovered-export-prefix",
        "recovered",
        "parse should accept shell-style `export KEY=value` lines; add a test first",
        KV,
        [
            [rd("tests/test_parser.py"), rd("kvparse/parser.py")],
            [
                ed(
                    "tests/test_parser.py",
                    '    assert parse("oops\\nb=3", strict=False) == {"b": "3"}\n',
                    '    assert parse("oops\\nb=3", strict=False) == {"b": "3"}\n' + EXPORT_TEST,
                )
            ],
            [sh("python -m pytest -q")],
            [
                ed(
                    "kvparse/parser.py",
                    'LINE = re.compile(r"^\\s*([A-Za-z_]',
                    'LINE = re.compile(r"^\\s*(?:export\\s+)?([A-Za-z_]',
                )
            ],
            [sh("python -m pytest -q")],
        ],
        """Done, test first:

1. Added `test_export_prefix` to `tests/test_parser.py`, which expects \
`parse("export PATH_X = /opt/bin")` to give `{"PATH_X": "/opt/bin"}`. As expected it failed \
at first (1 failed, 5 passed): the line raised `ParseError`.
2. Made the prefix optional in the `LINE` regex in `kvparse/parser.py`:

```python
LINE = re.compile(r"^\\s*(?:export\\s+)?([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*(.*?)\\s*$")
```

Now all 6 tests pass. The group is non-capturing, so `match.group(1)` and `match.group(2)` \
still are the key and the value.""",
        True,
        fails=1,
    ),
    Case(
        "recovered-wrong-path",
        "recovered",
        "what timeout does the config use?",
        WEB,
        [[rd("config.py")], [gl("**/config*")], [rd("app/config.py")]],
        "There's no `config.py` at the repo root; the settings module is `app/config.py`. The "
        "timeout is `TIMEOUT_S = 30.0` seconds, overridable with the `APP_TIMEOUT` environment "
        "variable (parsed with `float()`).",
        True,
        fails=1,
    ),
    Case(
        "recovered-rust-mut",
        "recovered",
        "main.rs doesn't compile, can you fix it?",
        RUST,
        [
            [sh("rustc main.rs -o main && ./main")],
            [rd("main.rs")],
            [ed("main.rs", "    let count = 0;", "    let mut count = 0;")],
            [sh("rustc main.rs -o main && ./main")],
        ],
        "`rustc` rejected it with `error[E0384]: cannot assign twice to immutable variable "
        "\\`count\\``: `count` is modified in the loop but was declared without `mut`. I changed "
        "line 2 to `let mut count = 0;`; it compiles now and prints `count = 6`.",
        True,
        fails=1,
    ),
    Case(
        "recovered-units-syntax",
        "recovered",
        "add yards to the unit table",
        UNITS_P,
        [
            [rd("units.py")],
            [ed("units.py", '    "mi": 1609.344,\n', '    "mi": 1609.344\n    "yd": 0.9144,\n')],
            [sh('python -c \'from units import convert; print(convert(1, "yd", "m"))\'')],
            [ed("units.py", '    "mi": 1609.344\n', '    "mi": 1609.344,\n')],
            [sh('python -c \'from units import convert; print(convert(1, "yd", "m"))\'')],
        ],
        """Added `"yd": 0.9144` to `FACTORS` in `units.py`.

My first edit dropped the comma after the `"mi"` entry, which made the file a `SyntaxError`; \
the check caught it, I restored the comma, and now `convert(1, "yd", "m")` prints \
`0.9144`.""",
        True,
        fails=1,
    ),
    Case(
        "recovered-typo-path",
        "recovered",
        "set KEEP_DAYS to 30",
        SHELL,
        [
            [sh("sed -i 's/^KEEP_DAYS=7$/KEEP_DAYS=30/' script/backup.sh")],
            [
                sh(
                    "sed -i 's/^KEEP_DAYS=7$/KEEP_DAYS=30/' scripts/backup.sh && grep -n '^KEEP' "
                    "scripts/backup.sh"
                )
            ],
        ],
        "`KEEP_DAYS` is now `30` in `scripts/backup.sh` (line 7). My first `sed` had a typo in "
        'the path (`script/` instead of `scripts/`) and failed with "No such file or '
        'directory"; the second one, on the right path, worked.',
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "recovered-npm-ci",
        "recovered",
        "install deps and run the tests",
        JS,
        [[sh("npm ci")], [sh("npm install --no-audit --no-fund && npm test 2>&1 | tail -8")]],
        "`npm ci` failed because there's no `package-lock.json` in the repo. Since "
        "`package.json` has no dependencies anyway, I ran `npm install` instead (nothing to "
        "install, but it created a `package-lock.json`) and then the tests: 3 tests, all "
        "passing.",
        True,
        fails=1,
        unrecovered=True,
    ),
]

CASES = [*RECOVERED]

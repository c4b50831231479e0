"""True answers that show a diff or a new file's content."""

from __future__ import annotations

from _answers_case import Case, ed, rd, sh, wr
from _answers_projects import INV, JS, KV, SHELL, STATS_P, TODO, TOTAL_NEW, TOTAL_OLD, WEB

VALUE_TESTS = """from kvparse.parser import parse


def test_values_are_strings():
    assert parse("n = 42") == {"n": "42"}


def test_value_keeps_inner_spaces():
    assert parse("greeting =  hello world  ") == {"greeting": "hello world"}
"""

EXPORT_CSV = '''"""Export the todo list as CSV on stdout."""

import csv
import sys

from todo import store


def main():
    writer = csv.writer(sys.stdout)
    writer.writerow(["text", "done", "priority"])
    for item in store.load():
        writer.writerow([item.text, item.done, item.priority])


if __name__ == "__main__":
    main()
'''

DIFF = [
    Case(
        "diff-total-value",
        "diff",
        "total_value is wrong, fix it and show me the diff",
        INV,
        [
            [rd("inventory.py")],
            [ed("inventory.py", TOTAL_OLD, TOTAL_NEW)],
            [sh("git diff && python -m pytest -q 2>&1 | tail -1")],
        ],
        """Here's the fix in `inventory.py`:

```diff
@@ -20,4 +20,4 @@ class Inventory:
         self.items[name] = (held - quantity, price)
 
     def total_value(self):
-        return sum(quantity for quantity, price in self.items.values())
+        return sum(quantity * price for quantity, price in self.items.values())
```

`total_value` ignored the unit price; now it's quantity × price per item. The tests: \
**4 passed**.""",
        True,
    ),
    Case(
        "diff-new-test-file",
        "diff",
        "add tests that values stay strings and inner spaces are kept",
        KV,
        [
            [rd("tests/test_parser.py")],
            [wr("tests/test_values.py", VALUE_TESTS)],
            [sh("python -m pytest -q")],
        ],
        """I added a new file, `tests/test_values.py`:

```python
from kvparse.parser import parse


def test_values_are_strings():
    assert parse("n = 42") == {"n": "42"}


def test_value_keeps_inner_spaces():
    assert parse("greeting =  hello world  ") == {"greeting": "hello world"}
```

The second test checks that spaces around the value are stripped but the one between \
`hello` and `world` stays. The full suite passes: **7 passed** (5 existing + 2 new).""",
        True,
    ),
    Case(
        "diff-median-empty",
        "diff",
        "median([]) should raise a clear error",
        STATS_P,
        [
            [rd("stats.py")],
            [
                ed(
                    "stats.py",
                    "    ordered = sorted(values)\n",
                    '    if not values:\n        raise ValueError("median() of an empty list")\n'
                    "    ordered = sorted(values)\n",
                )
            ],
            [sh("python -c 'import stats; stats.median([])' 2>&1 | tail -1")],
        ],
        """Changed `median` in `stats.py`:

```diff
 def median(values):
+    if not values:
+        raise ValueError("median() of an empty list")
     ordered = sorted(values)
```

Now `median([])` fails with `ValueError: median() of an empty list` instead of an \
`IndexError`. `mean([])` still raises `ZeroDivisionError`; I left it alone since you only \
asked about `median`.""",
        True,
    ),
    Case(
        "diff-port-validation",
        "diff",
        "reject ports outside 1-65535 in load()",
        WEB,
        [
            [rd("app/config.py")],
            [
                ed(
                    "app/config.py",
                    '        "port": int(env.get("APP_PORT", DEFAULT_PORT)),\n',
                    '        "port": _port(env.get("APP_PORT", DEFAULT_PORT)),\n',
                ),
                ed(
                    "app/config.py",
                    "\n\ndef load(env=None):",
                    "\n\ndef _port(value):\n    port = int(value)\n    if not 1 <= port <= "
                    '65535:\n        raise ValueError(f"port out of range: {port}")\n'
                    "    return port\n\n\ndef load(env=None):",
                ),
            ],
            [
                sh(
                    'python -c \'from app.config import load; print(load({"APP_PORT": "70000"}))\' '
                    "2>&1 | tail -1; "
                    "python -c 'from app.config import load; print(load({})[\"port\"])'"
                )
            ],
        ],
        """Added a `_port` helper to `app/config.py` and used it in `load()`:

```diff
+def _port(value):
+    port = int(value)
+    if not 1 <= port <= 65535:
+        raise ValueError(f"port out of range: {port}")
+    return port
+
+
 def load(env=None):
@@
-        "port": int(env.get("APP_PORT", DEFAULT_PORT)),
+        "port": _port(env.get("APP_PORT", DEFAULT_PORT)),
```

Checked both ways: `APP_PORT=70000` now raises `ValueError: port out of range: 70000`, and \
without `APP_PORT` the port is still `8080`.""",
        True,
    ),
    Case(
        "diff-keep-days-env",
        "diff",
        "let me override KEEP_DAYS from the environment in backup.sh",
        SHELL,
        [
            [rd("scripts/backup.sh")],
            [ed("scripts/backup.sh", "KEEP_DAYS=7", 'KEEP_DAYS="${KEEP_DAYS:-7}"')],
            [sh("bash -n scripts/backup.sh && git diff --stat")],
        ],
        """One-line change in `scripts/backup.sh`:

```diff
-KEEP_DAYS=7
+KEEP_DAYS="${KEEP_DAYS:-7}"
```

It still defaults to 7, and `KEEP_DAYS=30 make backup` (or `KEEP_DAYS=30 bash \
scripts/backup.sh`) keeps 30 days. `bash -n` reports no syntax errors.""",
        True,
    ),
    Case(
        "diff-slugify-escape",
        "diff",
        "slugify breaks with separator '.', can you fix it?",
        JS,
        [
            [rd("src/slugify.js")],
            [
                ed(
                    "src/slugify.js",
                    "    .replace(new RegExp(`^${separator}+|${separator}+$`, 'g'), '')",
                    "    .replace(new RegExp(`^${escaped}+|${escaped}+$`, 'g'), '')",
                ),
                ed(
                    "src/slugify.js",
                    "function slugify(text, separator = '-') {\n",
                    "function slugify(text, separator = '-') {\n"
                    "  const escaped = separator.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');\n",
                ),
            ],
            [
                sh(
                    "node -e \"console.log(require('./src/slugify')"
                    ".slugify('..Hello World..', '.'))\""
                    " && npm test 2>&1 | grep -E '^# (pass|fail)'"
                )
            ],
        ],
        """The trim step built a `RegExp` from the raw separator, so with `'.'` the pattern \
became `^.+|.+$`, which matches *everything* and returned an empty string. I now escape the \
separator first:

```diff
 function slugify(text, separator = '-') {
+  const escaped = separator.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');
   return text
@@
-    .replace(new RegExp(`^${separator}+|${separator}+$`, 'g'), '')
+    .replace(new RegExp(`^${escaped}+|${escaped}+$`, 'g'), '')
```

`slugify('..Hello World..', '.')` now gives `hello.world`, and the existing tests still pass \
(3 pass, 0 fail).""",
        True,
    ),
    Case(
        "diff-export-script",
        "diff",
        "write a script that exports the todo list as CSV",
        TODO,
        [
            [rd("todo/store.py")],
            [wr("scripts/export_csv.py", EXPORT_CSV)],
            [sh("python -m py_compile scripts/export_csv.py && echo compiled")],
        ],
        """Created `scripts/export_csv.py`:

```python
\"\"\"Export the todo list as CSV on stdout.\"\"\"

import csv
import sys

from todo import store


def main():
    writer = csv.writer(sys.stdout)
    writer.writerow(["text", "done", "priority"])
    for item in store.load():
        writer.writerow([item.text, item.done, item.priority])


if __name__ == "__main__":
    main()
```

It reads the same file as the CLI (`store.DEFAULT_PATH`, so `TODO_FILE` works too) and \
writes a header row plus one row per item. Run it from the repo root so `todo` is importable: \
`PYTHONPATH=. python scripts/export_csv.py > todos.csv`.""",
        True,
    ),
]

CASES = [*DIFF]

"""True answers: explanations after reading code, quoting its code and values."""

from __future__ import annotations

from _answers_case import Case, rd
from _answers_projects import HTTP, INV, JS, KV, SHELL, STATS_P, TODO, UNITS_P, WEB

EXPLAIN = [
    Case(
        "explain-parse-line-none",
        "explain",
        "What does parse_line return for a comment line?",
        KV,
        [[rd("kvparse/parser.py")]],
        "`parse_line` returns `None` for a comment line. It strips the line first and checks "
        '`stripped.startswith(COMMENT)`, where `COMMENT = "#"`; blank lines take the same early '
        "`return None`, so `parse()` simply skips them (`if entry:`).",
        True,
    ),
    Case(
        "explain-parse-line-dict",
        "explain",
        "what do I get back from parse_line for a normal line like `a = 1`?",
        KV,
        [[rd("kvparse/parser.py")]],
        """For a `key=value` line, `parse_line` returns a one-entry dict, e.g. `{"a": "1"}` for \
`a = 1`.

It matches the line against `LINE`:

```python
LINE = re.compile(r"^\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*(.*?)\\s*$")
```

- group 1 is the key: it must start with a letter or `_`, so `1a = x` does not match;
- group 2 is the value, non-greedy with the trailing `\\s*`, so surrounding spaces are dropped;
- the value is always a string: `parse_line("n = 42")` gives `{"n": "42"}`, not an int.

A line that doesn't match raises `ParseError` with the message `not a key=value line: ...`.""",
        True,
    ),
    Case(
        "explain-config-defaults",
        "explain",
        "What are the default settings of the app if no env vars are set?",
        WEB,
        [[rd("app/config.py")]],
        """With no `APP_*` variables set, `load()` in `app/config.py` returns:

| key | default | env var |
|---|---|---|
| `host` | `"127.0.0.1"` | `APP_HOST` |
| `port` | `8080` | `APP_PORT` |
| `debug` | `False` | `APP_DEBUG` (only `"1"` turns it on) |
| `workers` | `4` | `APP_WORKERS` |
| `timeout` | `30.0` | `APP_TIMEOUT` |

Note that `port` and `workers` go through `int()` and `timeout` through `float()`, so a value \
like `APP_PORT=abc` raises a `ValueError` at startup.""",
        True,
    ),
    Case(
        "explain-remove-errors",
        "explain",
        "what happens if I remove more items than are in stock, or an item that doesn't exist?",
        INV,
        [[rd("inventory.py")]],
        """`Inventory.remove` checks both cases before touching the stock:

1. **Unknown item** – `name not in self.items` raises `KeyError(f"unknown item: {name}")`, \
so `remove("nut", 1)` on an empty inventory fails with `KeyError: 'unknown item: nut'`.
2. **Too many** – if `quantity > held` it raises `ValueError(f"only {held} of {name} in \
stock")`, e.g. `only 2 of bolt in stock`.

In both cases `self.items` is left unchanged. Removing exactly the quantity held is allowed and \
leaves the item with a quantity of `0` (it is not deleted from the dict).""",
        True,
    ),
    Case(
        "explain-retry",
        "explain",
        "How does the retry logic in the billing client work? Will a failed POST be retried?",
        HTTP,
        [[rd("billing/client.py")]],
        """The retries come from urllib3's `Retry`, mounted on the session through an \
`HTTPAdapter` in `make_session`:

```python
retry = Retry(
    total=MAX_RETRIES,            # 3
    backoff_factor=BACKOFF_FACTOR, # 0.5
    status_forcelist=RETRY_STATUSES,  # (429, 502, 503, 504)
    allowed_methods=["GET", "PUT", "DELETE"],
)
```

- Up to **3** retries, with exponential backoff based on `0.5`.
- Only responses with status `429`, `502`, `503` or `504` are retried on status.
- **A failed POST is not retried**: `POST` is not in `allowed_methods`, which is the safe \
choice since a POST is not idempotent (you could create an invoice twice).

The adapter is only mounted for `https://`, which matches `BASE_URL`. Each request in \
`get_invoice` also passes `timeout=TIMEOUT_S` (10 seconds); a 404 is not an error there: it logs \
a warning and returns `None`.""",
        True,
    ),
    Case(
        "explain-slugify",
        "explain",
        "explain how slugify works, step by step",
        JS,
        [[rd("src/slugify.js")]],
        """`slugify(text, separator = '-')` in `src/slugify.js` is one chain of string operations:

1. `.normalize('NFKD')` splits accented letters into a base letter plus a combining mark \
(`é` → `e` + `\\u0301`).
2. `.replace(/[\\u0300-\\u036f]/g, '')` removes those combining marks, so `Crème` becomes `Creme`.
3. `.toLowerCase()`.
4. `.replace(/[^a-z0-9]+/g, separator)` turns every run of anything that isn't a lowercase \
letter or digit into a single separator.
5. A `RegExp` built from the separator trims separators at the start and end.
6. `.slice(0, MAX_LENGTH)` cuts the result to 60 characters.

One subtlety: the cut happens *after* the trim, so a long title can still end with a `-` if \
character 60 falls right after a separator. Also, since the separator is interpolated into a \
`RegExp` unescaped, a separator like `.` or `+` would be treated as a regex metacharacter.""",
        True,
    ),
    Case(
        "explain-todo-storage",
        "explain",
        "where does the todo app store its data, and what happens on first run?",
        TODO,
        [[rd("todo/store.py"), rd("todo/cli.py")]],
        """Todos are stored as JSON in `~/.todo.json` by default. `DEFAULT_PATH` in \
`todo/store.py` is computed at import time:

```python
DEFAULT_PATH = Path(os.environ.get("TODO_FILE", "~/.todo.json")).expanduser()
```

so you can point it elsewhere with the `TODO_FILE` environment variable, or per command with \
`--file` (the CLI's default for `--file` is that same `store.DEFAULT_PATH`).

On first run the file doesn't exist, and `load()` returns an empty list (`if not \
path.exists(): return []`). Every command then calls `store.save(...)` at the end of `main()`, \
so even `todo list` creates the file, with `[]` in it.

Each item is an `Item` dataclass with `text`, `done=False` and `priority=2`; `add -p` only \
accepts `1`, `2` or `3`.""",
        True,
    ),
    Case(
        "explain-backup-retention",
        "explain",
        "How long does backup.sh keep old backups and where does it put them?",
        SHELL,
        [[rd("scripts/backup.sh")]],
        'Backups go to `backups/` by default (`DEST="${BACKUP_DIR:-backups}"`, so '
        "`BACKUP_DIR` overrides it), one `data-YYYY-MM-DD.tar.gz` per day. Old ones are removed "
        'by `find "$DEST" -name \'data-*.tar.gz\' -mtime +"$KEEP_DAYS" -delete` with '
        "`KEEP_DAYS=7`, so archives older than a week are deleted on each run (in practice at "
        "least 8 days old, since `-mtime +7` counts whole days and rounds down).",
        True,
    ),
    Case(
        "explain-median-even",
        "explain",
        "does median() work for lists with an even number of values?",
        STATS_P,
        [[rd("stats.py")]],
        """Yes. For an even length it averages the two middle values:

```python
return (ordered[middle - 1] + ordered[middle]) / 2
```

With `[4, 1, 3, 2]` the sorted list is `[1, 2, 3, 4]`, `middle` is `2`, so the result is \
`(2 + 3) / 2 = 2.5`. For odd lengths it returns the middle element as is.

What it does **not** handle is an empty list: `ordered[middle - 1]` would be `ordered[-1]` on an \
empty list and raise `IndexError`. `mean([])` has the same problem with a \
`ZeroDivisionError`.""",
        True,
    ),
    Case(
        "explain-units-unknown",
        "explain",
        "what happens if I pass a unit convert() doesn't know?",
        UNITS_P,
        [[rd("units.py")]],
        "`convert` looks both units up in `FACTORS` inside a `try`, and turns the `KeyError` "
        'into `ValueError(f"unknown unit: {e.args[0]}")` with `from None`, so you get a clean '
        "`ValueError: unknown unit: yd` without the chained `KeyError`. The known units are "
        "`mm`, `cm`, `m`, `km`, `in`, `ft` and `mi` (7 in all), everything relative to metres.",
        True,
    ),
    Case(
        "explain-server-routes",
        "explain",
        "What endpoints does app/server.py serve?",
        WEB,
        [[rd("app/server.py")]],
        """Just one: **`GET /health`**, which answers `200` with `{"status": "ok"}`.

Every other GET path gets `404` with `{"error": "not found"}`, and since the `Handler` only \
defines `do_GET`, other methods (POST, PUT, ...) fall back to `BaseHTTPRequestHandler`'s \
default `501 Unsupported method` response.

Responses go through `_send`, which sets `Content-Type: application/json` and a \
`Content-Length`. The server is a `ThreadingHTTPServer` bound to the host and port from \
`app.config.load()`.""",
        True,
    ),
]

CASES = [*EXPLAIN]

"""True answers with right ``path:line`` citations."""

from __future__ import annotations

from _answers_case import Case, gr, rd, sh
from _answers_projects import HTTP, INV, JS, KV, SHELL, STATS_P, TODO, WEB

CITE = [
    Case(
        "cite-parse-error",
        "cite",
        "where is ParseError raised?",
        KV,
        [[gr("ParseError", path="kvparse")]],
        """`ParseError` is defined at `kvparse/parser.py:9` (a subclass of `ValueError`) and \
raised in one place:

- `kvparse/parser.py:20` – `parse_line` raises it when `LINE` doesn't match.

`parse` catches it at `kvparse/parser.py:30` and re-raises it (`raise` on line 32) when \
`strict` is true, otherwise it skips the line.""",
        True,
    ),
    Case(
        "cite-port",
        "cite",
        "where does the port number come from? give me file and line",
        WEB,
        [[gr("PORT|port", path=".")]],
        """Three places matter:

1. `app/config.py:6` – `DEFAULT_PORT = 8080`, the fallback.
2. `app/config.py:16` – `"port": int(env.get("APP_PORT", DEFAULT_PORT))`, the value the \
server actually uses.
3. `deploy/run.sh:5` – `export APP_PORT=9090`, so the deployed app listens on 9090.

`config/settings.toml:4` also says `port = 9090`, but no code reads that file. The server \
binds it at `app/server.py:27`.""",
        True,
    ),
    Case(
        "cite-total-value-bug",
        "cite",
        "Which line is the bug behind the failing test?",
        INV,
        [[sh("python -m pytest -q 2>&1 | tail -4"), rd("inventory.py")]],
        "The test fails at `test_inventory.py:29` (`assert 14 == 6.0`); the bug is at "
        "`inventory.py:23`: `total_value` returns `sum(quantity for quantity, price in "
        "self.items.values())`, leaving out the price. It should be `quantity * price`.",
        True,
    ),
    Case(
        "cite-priority-default",
        "cite",
        "where is the default priority set?",
        TODO,
        [[gr("priority", path="todo")]],
        """In two places, both `2`:

- `todo/store.py:15` – the `Item` dataclass field `priority: int = 2`;
- `todo/cli.py:15` – `add.add_argument("-p", "--priority", type=int, choices=[1, 2, 3], \
default=2)`.

Since `cli.py` always passes `priority=args.priority` (`todo/cli.py:26`), the CLI's default \
is the one that applies to new items; the dataclass default only matters when an `Item` is \
built without it, e.g. from an old JSON file that lacks the key.""",
        True,
    ),
    Case(
        "cite-slug-length",
        "cite",
        "where is the slug length limit applied?",
        JS,
        [[rd("src/slugify.js")]],
        "The limit is `MAX_LENGTH = 60` at `src/slugify.js:3`, applied at `src/slugify.js:12` "
        "with `.slice(0, MAX_LENGTH)`, after the separator trimming on line 11. It's exported "
        "too (`src/slugify.js:15`), so callers can read it.",
        True,
    ),
    Case(
        "cite-backup-delete",
        "cite",
        "Which line in backup.sh deletes old archives?",
        SHELL,
        [[gr("delete|rm ", path=".")], [rd("scripts/backup.sh")]],
        '`scripts/backup.sh:12`: `find "$DEST" -name \'data-*.tar.gz\' -mtime +"$KEEP_DAYS" '
        "-delete`. The retention comes from `KEEP_DAYS=7` on line 7. (`make clean` in the "
        "`Makefile` deletes the whole `backups` folder, but that's separate from the script.)",
        True,
    ),
    Case(
        "cite-zero-division",
        "cite",
        "where can stats.py divide by zero?",
        STATS_P,
        [[rd("stats.py")]],
        """Two spots:

- `stats.py:5` – `mean` does `sum(values) / len(values)`, a `ZeroDivisionError` for an \
empty list.
- `stats.py:13` – `median` divides by the constant `2`, which is safe; but for an empty list \
it never gets there: `ordered[middle - 1]` is evaluated first and raises `IndexError`.

The empty case is reachable from the command line: `stats.py:23` builds `numbers` from \
`sys.argv[1:]`, which is empty when no arguments are given.""",
        True,
    ),
    Case(
        "cite-retry-statuses",
        "cite",
        "where are the retry status codes configured?",
        HTTP,
        [[gr("RETRY_STATUSES")]],
        "`billing/client.py:14` defines `RETRY_STATUSES = (429, 502, 503, 504)`, and "
        "`billing/client.py:23` passes it to `Retry` as `status_forcelist`. `500` isn't in the "
        "list, so an internal server error is not retried.",
        True,
    ),
]

CASES = [*CITE]

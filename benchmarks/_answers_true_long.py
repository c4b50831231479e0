"""True long answers: several paragraphs with headings, tables and code blocks."""

from __future__ import annotations

from _answers_case import Case, ed, git, gl, ls, rd, sh, wr
from _answers_projects import C_PROJ, HTTP, INV, KV, TODO, WEB

KV_README = """# kvparse

Parse `key=value` lines into a dict.

```python
from kvparse import parse

parse("host = example.org\\nport = 8080")
# {'host': 'example.org', 'port': '8080'}
```

- Blank lines and lines starting with `#` are skipped.
- Values are always strings; surrounding spaces are stripped.
- A later key wins over an earlier one.
- A line that is not `key=value` raises `kvparse.parser.ParseError`, unless you pass
  `strict=False`, which skips it.
"""

LONG = [
    Case(
        "long-review-inventory",
        "long",
        "Can you review inventory.py and its tests?",
        INV,
        [[rd("inventory.py"), rd("test_inventory.py")], [sh("python -m pytest -q 2>&1 | tail -2")]],
        """## Review of `inventory.py`

Overall the class is small and readable, but there is one real bug and a few rough edges.

### Test run

```
FAILED test_inventory.py::test_total_value - assert 14 == 6.0
1 failed, 3 passed
```

### Issues

| # | Where | Severity | Problem |
|---|---|---|---|
| 1 | `total_value` | **bug** | Sums quantities only; ignores the unit price. |
| 2 | `add` | medium | The price passed for an existing item silently replaces the old price. |
| 3 | `remove` | low | An item removed down to `0` stays in `self.items`. |
| 4 | `add` | low | No check that `price` is non-negative. |

#### 1. `total_value`

```python
def total_value(self):
    return sum(quantity * price for quantity, price in self.items.values())
```

This makes `test_total_value` pass (10 × 0.5 + 4 × 0.25 = 6.0).

#### 2. Price on re-add

`held, _ = self.items.get(name, (0, price))` throws the stored price away, so \
`add("bolt", 1, 9.99)` reprices all bolts in stock. Either reject a different price or keep \
a weighted average, depending on what the business wants.

### Tests

The four tests cover the happy path and both errors of `remove`. Missing:
- `add` with `quantity <= 0` (should raise `ValueError("quantity must be positive")`);
- adding the same item twice;
- `total_value()` on an empty inventory (should be `0`).

I didn't change any files; tell me which of these you'd like fixed.""",
        True,
        fails=0,
    ),
    Case(
        "long-web-architecture",
        "long",
        "explain how this web app is structured and what happens on a request",
        WEB,
        [
            [ls("."), rd("app/server.py"), rd("app/config.py"), rd("deploy/run.sh")],
            [rd("config/settings.toml"), rd("README.md")],
        ],
        """# How the web app fits together

## Layout

| Path | Role |
|---|---|
| `app/config.py` | Reads settings from `APP_*` environment variables, with defaults |
| `app/server.py` | The HTTP server and its single request handler |
| `deploy/run.sh` | Production start script: sets the env vars, runs the server |
| `config/settings.toml` | Documents the deployed settings (not read by the code) |
| `README.md` | One-line usage note |

## Startup

1. `deploy/run.sh` exports `APP_HOST=0.0.0.0`, `APP_PORT=9090`, `APP_WORKERS=8` and \
`exec`s `python3 -m app.server`.
2. `main()` in `app/server.py` calls `load()`, then creates a \
`ThreadingHTTPServer((host, port), Handler)` and prints `listening on <host>:<port>`.
3. `serve_forever()` handles each connection in its own thread.

Note that `workers`, `debug` and `timeout` are loaded but **never used** by the server: \
`ThreadingHTTPServer` spawns a thread per request regardless.

## A request

```
client ──GET /health──> Handler.do_GET ──> _send(200, {"status": "ok"})
client ──GET /other───> Handler.do_GET ──> _send(404, {"error": "not found"})
```

`_send` serialises the body with `json.dumps`, then writes the status line, \
`Content-Type: application/json`, `Content-Length` and the body. Methods other than GET \
aren't implemented, so `BaseHTTPRequestHandler` answers them with `501`.

## Things worth knowing

- There's no logging setup beyond the default access log `BaseHTTPRequestHandler` writes to \
stderr.
- No graceful shutdown: `serve_forever()` runs until the process is killed.""",
        True,
    ),
    Case(
        "long-kv-readme",
        "long",
        "write a README for kvparse",
        KV,
        [[rd("kvparse/parser.py"), rd("pyproject.toml")], [wr("README.md", KV_README)]],
        """I created `README.md` at the repo root. It covers:

## Contents

- **What it does** – parse `key=value` lines into a `dict`.
- **Usage example**:

  ```python
  from kvparse import parse

  parse("host = example.org\\nport = 8080")
  # {'host': 'example.org', 'port': '8080'}
  ```

- **Rules**, taken from `kvparse/parser.py`:
  - blank lines and `#` comments are skipped;
  - values are always strings, with surrounding spaces stripped;
  - a later key wins;
  - a bad line raises `kvparse.parser.ParseError`, or is skipped with `strict=False`.

## Not included yet

I left out installation instructions: `pyproject.toml` has no `[build-system]` table, so it \
would be worth adding one (e.g. hatchling or setuptools) before documenting \
`pip install kvparse`. The README also doesn't mention the `>=3.10` requirement; I can add a \
"Requirements" section if you like.""",
        True,
    ),
    Case(
        "long-security-review",
        "long",
        "do a quick security review of billing/client.py",
        HTTP,
        [[rd("billing/client.py"), rd("requirements.txt")]],
        """## Security review: `billing/client.py`

### What's fine

- **HTTPS only.** `BASE_URL` is `https://billing.example.com/api/v2` and the retrying \
adapter is mounted for `https://` only.
- **Timeouts on reads.** `get_invoice` passes `timeout=TIMEOUT_S` (10 s).
- **Non-idempotent methods aren't retried.** `allowed_methods=["GET", "PUT", "DELETE"]` \
leaves `POST` out.
- **Pinned dependencies.** `requirements.txt` pins `requests==2.32.3` and `urllib3==2.2.2`.

### Worth fixing

1. **The bearer token lives on the session for its whole life.** \
`session.headers["Authorization"] = f"Bearer {token}"` means every request made with that \
session carries it, including any to another host. `requests` strips `Authorization` on \
redirects to a different host, but anything that builds URLs from user input with this \
session would leak it.
2. **`invoice_id` goes into the URL unescaped.** `f"{BASE_URL}/invoices/{invoice_id}"`: an \
id like `../customers` changes the path. Quote it with `urllib.parse.quote(str(invoice_id), \
safe="")`.
3. **Error bodies can end up in logs.** `response.raise_for_status()` raises `HTTPError` with \
the URL in the message; if callers log exceptions, the invoice URLs land in logs. That's \
minor unless ids are sensitive.

### Not an issue here

There's no TLS verification override (`verify=False` appears nowhere), and nothing is \
deserialised beyond `response.json()`.

No files were changed.""",
        True,
    ),
    Case(
        "long-due-dates-plan",
        "long",
        "I want due dates on todos. Plan it out before writing code.",
        TODO,
        [[rd("todo/store.py"), rd("todo/cli.py"), gl("**/test*")]],
        """# Plan: due dates for todos

## 1. Data model (`todo/store.py`)

Add an optional field to `Item`:

```python
@dataclass
class Item:
    text: str
    done: bool = False
    priority: int = 2
    due: str | None = None  # ISO date, "2025-03-01"
```

Storing the date as an ISO string keeps `save()` unchanged (`asdict` + `json.dumps` \
handles it), and old files keep loading because `due` has a default.

## 2. CLI (`todo/cli.py`)

| Change | Detail |
|---|---|
| `add --due YYYY-MM-DD` | `type=date.fromisoformat`, so bad dates fail early |
| `list` | show `(due 2025-03-01)` after the priority; mark overdue items |
| `list --sort due` | optional: sort by due date, items without one last |

## 3. Tests

There are none yet, so I'd start a `tests/test_store.py` (round trip with and without `due`, \
loading an old file without the key) and a `tests/test_cli.py` driving `cli.main([...])` \
against a `tmp_path` file.

## Open questions

1. Dates only, or date and time?
2. Should `list` hide done items by default once there are due dates?

Nothing has been changed yet; tell me if the plan works for you and I'll implement it.""",
        True,
    ),
    Case(
        "long-test-report",
        "long",
        "run the tests verbosely and give me a summary table",
        KV,
        [
            [rd("tests/test_parser.py"), rd("kvparse/parser.py")],
            [sh("python -m pytest -v 2>&1 | grep -E 'PASSED|FAILED|passed|failed'")],
        ],
        """## Test results

All **5 tests passed**.

| Test | What it checks | Result |
|---|---|---|
| `test_one_line` | `parse_line("a = 1") == {"a": "1"}` | ✅ PASSED |
| `test_blank_and_comment` | blank and `#` lines give `None` | ✅ PASSED |
| `test_later_key_wins` | `"a=1\\na=2"` gives `{"a": "2"}` | ✅ PASSED |
| `test_bad_line_strict` | a bad line raises `ParseError` | ✅ PASSED |
| `test_bad_line_lenient` | `strict=False` skips it | ✅ PASSED |

## Gaps

The tests don't cover keys with leading digits, values containing `=`, or lines with \
leading whitespace before the key. None of these is broken as far as I can tell from \
reading `kvparse/parser.py`; they just aren't tested.""",
        True,
    ),
    Case(
        "long-build-fix-report",
        "long",
        "fix the C build and write me a short report",
        C_PROJ,
        [
            [sh("make 2>&1 | grep error")],
            [rd("src/counter.c")],
            [ed("src/counter.c", "    c->count++\n", "    c->count++;\n")],
            [sh("make && ./counter")],
            [git("diff")],
        ],
        """## Build fix report

### What was wrong

`make` failed compiling `src/counter.c`:

```
src/counter.c:5:15: error: expected ‘;’ before ‘}’ token
```

The statement `c->count++` at the end of `counter_add` had no semicolon.

### The fix

```diff
 void counter_add(struct counter *c, int value) {
     c->total += value;
-    c->count++
+    c->count++;
 }
```

### Verification

- `make` now builds the `counter` binary without errors or warnings (`-Wall -O2`).
- `./counter` prints `total=10 count=5`, which is right: `main` adds 0, 1, 2, 3 and 4.

### Suggestions

- Add `counter` to a `.gitignore` so the binary isn't committed by accident.
- Consider a `clean` target in the `Makefile`.""",
        True,
    ),
]

CASES = [*LONG]

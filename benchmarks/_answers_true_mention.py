"""True answers that name files they read or that exist, and stdlib or third-party modules, without
touching them."""

from __future__ import annotations

from _answers_case import Case, gl, gr, ls, rd
from _answers_projects import C_PROJ, HTTP, JS, KV, SHELL, TODO, WEB

UPLOADS = {
    "storage/uploads.py": '''import os

UPLOAD_ROOT = "/srv/uploads"


def upload_path(user_path):
    """Where an uploaded file is stored."""
    return os.path.join(UPLOAD_ROOT, user_path)
''',
}

MENTION = [
    Case(
        "mention-requests-timeout",
        "mention",
        "Our billing calls sometimes hang forever. Could it be the client?",
        HTTP,
        [[rd("billing/client.py")]],
        """`get_invoice` itself can't hang forever: it passes `timeout=TIMEOUT_S` (10 s) to \
`session.get`. But the session returned by `make_session` has **no default timeout**. \
`requests` doesn't support a session-wide timeout: in `requests/sessions.py`, \
`Session.request` takes `timeout=None` and passes it down to the adapter, so any other call \
made with that session (`session.post(...)`, `session.put(...)`) without an explicit \
`timeout=` can block indefinitely on a stalled connection.

The retries don't help there either: `Retry` in `urllib3/util/retry.py` only kicks in after a \
request errors out or returns one of the `RETRY_STATUSES`; a request that never returns never \
gets retried.

Options:
- pass `timeout=TIMEOUT_S` on every call, or
- subclass `HTTPAdapter` to set a default timeout in `send()` and mount that in \
`make_session`.""",
        True,
    ),
    Case(
        "mention-os-path-join",
        "mention",
        "is upload_path safe against path traversal?",
        UPLOADS,
        [[rd("storage/uploads.py")]],
        """No. `upload_path` just does `os.path.join(UPLOAD_ROOT, user_path)`, which has two \
problems:

1. **Absolute paths replace the root.** `os.path.join` (see `posixpath.py`) discards \
everything before an absolute component, so `upload_path("/etc/passwd")` returns \
`"/etc/passwd"`.
2. **`..` is kept as is.** `upload_path("../../etc/passwd")` gives \
`"/srv/uploads/../../etc/passwd"`, which resolves outside `/srv/uploads`.

A safer version resolves the path and checks it stays under the root:

```python
def upload_path(user_path):
    root = os.path.realpath(UPLOAD_ROOT)
    path = os.path.realpath(os.path.join(root, user_path))
    if os.path.commonpath([root, path]) != root:
        raise ValueError(f"path escapes the upload root: {user_path}")
    return path
```

I haven't changed `storage/uploads.py`; say the word and I'll apply it.""",
        True,
    ),
    Case(
        "mention-run-other-port",
        "mention",
        "How do I run the app on a different port locally?",
        WEB,
        [[rd("README.md"), rd("deploy/run.sh"), rd("app/config.py")]],
        """The app reads its port only from the environment: `app/config.py` uses \
`APP_PORT`, defaulting to `DEFAULT_PORT = 8080`. So locally:

```bash
APP_PORT=9000 python3 -m app.server
```

Two things that might be confusing:
- `deploy/run.sh` hard-codes `APP_PORT=9090` (plus host `0.0.0.0` and 8 workers), so running \
that script will always use 9090.
- `config/settings.toml` also says `port = 9090`, but nothing in `app/` reads that file: it's \
only documentation for the deployment. Changing it has no effect on the server.""",
        True,
    ),
    Case(
        "mention-overview",
        "mention",
        "give me a quick overview of this repo",
        TODO,
        [[ls("."), ls("todo")], [rd("todo/cli.py"), rd("todo/store.py"), rd("README.md")]],
        """It's a small command-line todo list in Python:

- `todo/cli.py` – the argparse CLI with three subcommands: `add`, `list` and `done`.
- `todo/store.py` – loading and saving the items as JSON (an `Item` dataclass).
- `todo/__init__.py` – makes `todo` a package.
- `README.md` – usage examples (`python -m todo.cli add "buy milk" -p 1`).

There are no tests and no `pyproject.toml`/`requirements.txt`; it only uses the standard \
library (`argparse`, `json`, `dataclasses`, `pathlib`).""",
        True,
    ),
    Case(
        "mention-corrupt-json",
        "mention",
        "What happens if the todo file gets corrupted?",
        TODO,
        [[rd("todo/store.py"), rd("todo/cli.py")]],
        """`load()` doesn't guard against it, so the CLI crashes with a traceback:

- **Invalid JSON** – `json.loads` raises `json.JSONDecodeError` (defined in \
`json/decoder.py`, a subclass of `ValueError`).
- **Valid JSON, wrong shape** – `Item(**raw)` raises `TypeError` for an unexpected key (e.g. \
`{"title": ...}`), or if an entry isn't a dict at all.

Nothing is overwritten in that case, because `main()` in `todo/cli.py` calls `store.load` \
before anything else and never reaches `store.save`. If you'd rather start fresh, you could \
catch `(json.JSONDecodeError, TypeError)` in `load()` and back the bad file up before \
returning `[]`.""",
        True,
    ),
    Case(
        "mention-makefile-targets",
        "mention",
        "what do the make targets do?",
        SHELL,
        [[rd("Makefile"), rd("scripts/backup.sh"), ls("data")]],
        """There are two targets in the `Makefile`:

- **`make backup`** runs `bash scripts/backup.sh data`: it archives the `data/` folder (right \
now just `data/notes.txt`) into `backups/data-<date>.tar.gz` and deletes archives older than \
`KEEP_DAYS=7` days.
- **`make clean`** runs `rm -rf backups`, i.e. deletes **all** backups, not only old ones.

Neither target is declared `.PHONY`, so if a file named `backup` or `clean` ever appears in the \
repo root, make will consider the target up to date and do nothing.""",
        True,
    ),
    Case(
        "mention-no-setup-py",
        "mention",
        "Which Python versions does kvparse support, and where's the test config?",
        KV,
        [[rd("pyproject.toml"), gl("**/*.py"), ls(".")]],
        """Both live in `pyproject.toml`:

- `requires-python = ">=3.10"`, so 3.10 and newer. That matches the code: \
`kvparse/parser.py` uses `dict[str, str] | None` annotations, which need 3.10.
- `[tool.pytest.ini_options]` sets `testpaths = ["tests"]`, so a bare `pytest` collects \
`tests/test_parser.py`.

There's no `setup.py`, `setup.cfg` or `tox.ini`. Note the `[project]` table has no \
`[build-system]`, so `pip install .` falls back to the legacy setuptools backend.""",
        True,
    ),
    Case(
        "mention-struct-counter",
        "mention",
        "where is struct counter defined and who uses it?",
        C_PROJ,
        [[gr("counter", path="src")], [rd("src/main.c"), rd("Makefile")]],
        """`struct counter` is defined in `src/counter.h` with two `int` fields, `total` and \
`count`, next to the prototype `void counter_add(struct counter *c, int value);`.

It's used in:
- `src/counter.c` – implements `counter_add`, which adds `value` to `total` and increments \
`count`;
- `src/main.c` – declares `struct counter c = {0};`, calls `counter_add` five times and \
prints the result with `printf` (from `<stdio.h>`).

Both `.c` files include `"counter.h"`, and the `Makefile` builds them into a `counter` \
binary.""",
        True,
    ),
    Case(
        "mention-js-deps",
        "mention",
        "does this package have any npm dependencies I need to install?",
        JS,
        [[rd("package.json"), rd("test/slugify.test.js")]],
        "No. `package.json` has no `dependencies` or `devDependencies` at all, and the tests "
        "only use Node's built-in `node:test` and `node:assert` modules, so there's nothing to "
        "`npm install` and no `node_modules/` needed; `npm test` works on a fresh clone with "
        "Node 18 or newer.",
        True,
    ),
]

CASES = [*MENTION]

"""True answers that find no change is needed."""

from __future__ import annotations

from _answers_case import Case, gr, rd, sh
from _answers_projects import HTTP, JS, KV, TODO, WEB

GITIGNORED = {
    ".gitignore": "__pycache__/\n*.pyc\n.venv/\ndist/\n.pytest_cache/\n",
    "main.py": "print('hi')\n",
}

NOCHANGE = [
    Case(
        "nochange-port-9090",
        "nochange",
        "Make sure the deployed app listens on port 9090.",
        WEB,
        [[rd("deploy/run.sh"), rd("config/settings.toml")]],
        "No change needed: the deployment already uses port 9090. `deploy/run.sh` exports "
        "`APP_PORT=9090` before starting `python3 -m app.server`, and `config/settings.toml` "
        "also has `port = 9090` under `[server]`. The `8080` in `app/config.py` is only the "
        "fallback when `APP_PORT` isn't set.",
        True,
    ),
    Case(
        "nochange-strict-default",
        "nochange",
        "make parse() strict by default",
        KV,
        [[rd("kvparse/parser.py"), rd("tests/test_parser.py")]],
        "It already is. `parse` is declared as `def parse(text: str, *, strict: bool = True)`, "
        "so a bad line raises `ParseError` unless the caller passes `strict=False` explicitly "
        "(there's a test for each, `test_bad_line_strict` and `test_bad_line_lenient`). I left "
        "the file as it is.",
        True,
    ),
    Case(
        "nochange-gitignore",
        "nochange",
        "add __pycache__ and .venv to the gitignore",
        GITIGNORED,
        [[rd(".gitignore")]],
        """Both are already in `.gitignore`:

```
__pycache__/
*.pyc
.venv/
dist/
.pytest_cache/
```

so there's nothing to add.""",
        True,
    ),
    Case(
        "nochange-invoice-timeout",
        "nochange",
        "Make sure get_invoice has a timeout",
        HTTP,
        [[rd("billing/client.py")]],
        "`get_invoice` already has one: it calls `session.get(..., timeout=TIMEOUT_S)` with "
        "`TIMEOUT_S = 10`, so a request fails with a timeout after 10 seconds without a "
        "response. Nothing to change there.",
        True,
    ),
    Case(
        "nochange-tests-green",
        "nochange",
        "fix the failing tests",
        KV,
        [[sh("python -m pytest -q")]],
        "I ran the suite and nothing is failing here: `5 passed`. If you saw failures "
        "somewhere else (CI, another Python version), send me the output and I'll look into "
        "it. I didn't change any files.",
        True,
    ),
    Case(
        "nochange-already-renamed",
        "nochange",
        "rename load_items to load in the store module",
        TODO,
        [[gr("load_items"), gr("load", path="todo")]],
        "There's no `load_items` anywhere in the repo, the function in `todo/store.py` is "
        "already called `load` (`def load(path=DEFAULT_PATH):`), and `todo/cli.py` calls it "
        "as `store.load(args.file)`. So the rename has already been done; nothing to change.",
        True,
    ),
    Case(
        "nochange-requests-pinned",
        "nochange",
        "pin requests to 2.32.3",
        HTTP,
        [[rd("requirements.txt")]],
        "`requirements.txt` already pins it: `requests==2.32.3` (and `urllib3==2.2.2`). "
        "No change needed.",
        True,
    ),
    Case(
        "nochange-node-test-runner",
        "nochange",
        "Make npm test use node's built-in test runner instead of jest",
        JS,
        [[rd("package.json"), gr("jest"), rd("test/slugify.test.js")]],
        """It already does. The `test` script in `package.json` is:

```json
"test": "node --test test/"
```

and there's no mention of jest anywhere in the repo (no dependency, no config, and \
`test/slugify.test.js` imports `node:test`). Nothing to change.""",
        True,
    ),
]

CASES = [*NOCHANGE]

"""True answers that suggest files or code that do not exist yet."""

from __future__ import annotations

from _answers_case import Case, gl, gr, ls, rd
from _answers_projects import C_PROJ, HTTP, INV, JS, KV, TODO, WEB

SUGGEST = [
    Case(
        "suggest-cli-tests",
        "suggest",
        "Are there tests for the CLI? If not, what would you add?",
        TODO,
        [[gl("**/test_*.py"), rd("todo/cli.py")]],
        """There are no tests at all in the repo. You might add `tests/test_cli.py` using \
pytest's `tmp_path` so nothing touches your real `~/.todo.json`:

```python
from todo import cli, store


def test_add_and_list(tmp_path, capsys):
    path = tmp_path / "todo.json"
    cli.main(["--file", str(path), "add", "buy milk", "-p", "1"])
    cli.main(["--file", str(path), "list"])
    assert "1. [ ] buy milk (p1)" in capsys.readouterr().out


def test_done_marks_item(tmp_path):
    path = tmp_path / "todo.json"
    cli.main(["--file", str(path), "add", "x"])
    cli.main(["--file", str(path), "done", "1"])
    assert store.load(path)[0].done
```

Since `main()` already accepts `argv`, no refactoring is needed to test it. You'd also want an \
empty `tests/__init__.py` or a `pyproject.toml` with `pythonpath = ["."]` so `todo` is \
importable. Want me to create these files?""",
        True,
    ),
    Case(
        "suggest-port-validation",
        "suggest",
        "how could we validate the port setting? don't change anything yet",
        WEB,
        [[rd("app/config.py")]],
        """Right now `load()` does `int(env.get("APP_PORT", DEFAULT_PORT))`, which accepts any \
integer, including `0`, negative numbers or `70000`. I'd add a small check after building the \
dict:

```python
def _check_port(port):
    if not 1 <= port <= 65535:
        raise ValueError(f"APP_PORT must be between 1 and 65535, got {port}")
    return port
```

and use `"port": _check_port(int(env.get("APP_PORT", DEFAULT_PORT)))` in `load()`. You could \
do the same for `workers` (must be at least 1). As asked, I haven't modified \
`app/config.py`.""",
        True,
    ),
    Case(
        "suggest-ci-workflow",
        "suggest",
        "How would I set up CI for this on GitHub?",
        KV,
        [[rd("pyproject.toml"), ls(".")]],
        """There's no CI config yet. A minimal GitHub Actions workflow would be \
`.github/workflows/tests.yml`:

```yaml
name: tests
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python-version: ["3.10", "3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python-version }}
      - run: pip install pytest
      - run: pytest
```

The matrix starts at 3.10 because `pyproject.toml` declares `requires-python = ">=3.10"`, and \
a bare `pytest` is enough since `testpaths = ["tests"]` is already configured.""",
        True,
    ),
    Case(
        "suggest-conftest-fixture",
        "suggest",
        "the inventory tests repeat the same setup, any idea how to clean that up?",
        INV,
        [[rd("test_inventory.py"), rd("inventory.py")]],
        """Yes, three of the four tests build an `Inventory` and add bolts. A fixture in a \
new `conftest.py` (next to `test_inventory.py`) would remove that:

```python
import pytest

from inventory import Inventory


@pytest.fixture
def stocked():
    inv = Inventory()
    inv.add("bolt", 10, 0.5)
    return inv
```

Then e.g. `test_add_then_remove(stocked)` only calls `stocked.remove("bolt", 4)` and checks \
`stocked.items["bolt"] == (6, 0.5)`. `test_remove_too_many` adds only 2 bolts, so it either \
keeps its own setup or removes 11 from the fixture's 10.

Heads-up: `test_total_value` currently fails regardless, since `total_value()` ignores prices.""",
        True,
    ),
    Case(
        "suggest-dockerfile",
        "suggest",
        "What would a Dockerfile for this app look like?",
        WEB,
        [[rd("deploy/run.sh"), rd("app/server.py")]],
        """The app only uses the standard library, so a slim image is enough. Something like \
this `Dockerfile` at the repo root:

```dockerfile
FROM python:3.12-slim
WORKDIR /srv/app
COPY app/ app/
COPY deploy/run.sh deploy/run.sh
EXPOSE 9090
CMD ["sh", "deploy/run.sh"]
```

`deploy/run.sh` already exports `APP_HOST=0.0.0.0` (needed inside a container) and \
`APP_PORT=9090`, then `exec`s `python3 -m app.server`, so the shell doesn't linger as a parent \
process. Run it with `docker run -p 9090:9090 webapp`.""",
        True,
    ),
    Case(
        "suggest-logging-setup",
        "suggest",
        "The warning in get_invoice never shows up. Why, and where should logging be set up?",
        HTTP,
        [[rd("billing/client.py"), gr("basicConfig|logging\\.")]],
        """`billing/client.py` creates a module logger (`log = logging.getLogger(__name__)`) \
and calls `log.warning("invoice %s not found", invoice_id)`, but nothing in the repo \
configures logging, so there's no handler on the `billing.client` logger or the root.

Since Python 3.2, a warning with no handlers at all should still reach stderr through \
`logging.lastResort`, so if you don't see it, your application most likely configures the \
root logger with a higher level or a handler that filters it out.

Libraries shouldn't configure logging themselves. Set it up once in your entry point, e.g. a \
new `billing/__main__.py` or your app's startup code:

```python
import logging

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
```""",
        True,
    ),
    Case(
        "suggest-esm",
        "suggest",
        "should we switch slugify to ES modules? what would change?",
        JS,
        [[rd("package.json"), rd("src/slugify.js")]],
        """It's a small change, since there's only one module. You'd:

1. add `"type": "module"` to `package.json`;
2. replace `module.exports = { slugify, MAX_LENGTH };` in `src/slugify.js` with \
`export { slugify, MAX_LENGTH };` (and drop `'use strict';`, ES modules are always strict);
3. in `test/slugify.test.js`, switch the `require` calls to imports:

```js
import test from 'node:test';
import assert from 'node:assert';
import { slugify } from '../src/slugify.js';
```

Note the `.js` extension becomes mandatory in the import path. The downside: any CommonJS \
consumer that does `require('slugs')` could break, so only do it if nothing else depends on \
this package.""",
        True,
    ),
    Case(
        "suggest-c-unit-test",
        "suggest",
        "how would I add a unit test for counter_add?",
        C_PROJ,
        [[rd("src/counter.c"), rd("Makefile")]],
        """First, `src/counter.c` doesn't compile right now: line 5 is missing a semicolon \
(`c->count++` should be `c->count++;`).

For a test, plain `assert.h` is enough. A new `tests/test_counter.c`:

```c
#include <assert.h>
#include "../src/counter.h"

int main(void) {
    struct counter c = {0};
    counter_add(&c, 2);
    counter_add(&c, 3);
    assert(c.total == 5);
    assert(c.count == 2);
    return 0;
}
```

and a target in the `Makefile`:

```make
test: tests/test_counter.c src/counter.c
\t$(CC) $(CFLAGS) -o test_counter $^ && ./test_counter
```

`make test` would then build and run it; a failed `assert` aborts with a non-zero status.""",
        True,
    ),
]

CASES = [*SUGGEST]

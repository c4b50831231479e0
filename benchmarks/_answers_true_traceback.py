"""True answers quoting a traceback or a compiler error from a run."""

from __future__ import annotations

from _answers_case import Case, rd, sh
from _answers_projects import C_PROJ, JS, KV, RUST, STATS_P, TODO, WEB

TRACEBACK = [
    Case(
        "traceback-stats-empty",
        "traceback",
        "what happens if I run stats.py without arguments?",
        STATS_P,
        [[sh("python stats.py")], [rd("stats.py")]],
        """It crashes:

```
  File ".../stats.py", line 5, in mean
    return sum(values) / len(values)
           ~~~~~~~~~~~~^~~~~~~~~~~~~
ZeroDivisionError: division by zero
```

With no arguments `numbers` is empty, `summary()` calls `mean([])`, and `len(values)` is 0. \
(`median` would also fail on an empty list, with an `IndexError`, but `mean` runs first.)""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "traceback-bad-priority",
        "traceback",
        "why does `todo add x -p 5` fail?",
        TODO,
        [[sh("python -m todo.cli --file /dev/null add x -p 5")]],
        """argparse rejects it before anything runs:

```
usage: todo add [-h] [-p {1,2,3}] text
todo add: error: argument -p/--priority: invalid choice: 5 (choose from 1, 2, 3)
```

`--priority` is declared with `choices=[1, 2, 3]` in `todo/cli.py`, so only 1 to 3 are \
accepted (exit status 2).""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "traceback-rust",
        "traceback",
        "why doesn't main.rs compile?",
        RUST,
        [[sh("rustc main.rs -o main")]],
        """rustc gives:

```
error[E0384]: cannot assign twice to immutable variable `count`
 --> main.rs:4:9
  |
2 |     let count = 0;
  |         ----- first assignment to `count`
3 |     for i in 1..=3 {
4 |         count += i;
  |         ^^^^^^^^^^ cannot assign twice to immutable variable
```

Variables are immutable by default in Rust; `count += i` needs `let mut count = 0;` on line 2, \
as the compiler's help also suggests.""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "traceback-parse-error",
        "traceback",
        "what error do I get when a key starts with a digit?",
        KV,
        [
            [sh("python -c \"from kvparse import parse; parse('a=1\\n2x=3')\"")],
            [rd("kvparse/parser.py")],
        ],
        """`parse` raises `ParseError` for that line:

```
  File ".../kvparse/parser.py", line 20, in parse_line
    raise ParseError(f"not a key=value line: {line!r}")
kvparse.parser.ParseError: not a key=value line: '2x=3'
```

The key group in `LINE` is `[A-Za-z_][A-Za-z0-9_]*`, so a key can't start with a digit. With \
`strict=False` the line is skipped instead.""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "traceback-node-undefined",
        "traceback",
        "what happens if slugify gets undefined?",
        JS,
        [[sh("node -e \"require('./src/slugify').slugify(undefined)\"")]],
        """It throws:

```
TypeError: Cannot read properties of undefined (reading 'normalize')
    at Object.slugify (.../src/slugify.js:7:6)
```

The first thing `slugify` does is `text.normalize('NFKD')`, and there's no check that `text` \
is a string. If you want `slugify(undefined)` to return `''`, add `text = String(text ?? '')` \
at the top of the function.""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "traceback-gcc-warning-free",
        "traceback",
        "compile counter.c on its own and tell me what the compiler says",
        C_PROJ,
        [[sh("gcc -Wall -c src/counter.c -o /dev/null")]],
        """gcc stops with one error:

```
src/counter.c: In function ‘counter_add’:
src/counter.c:5:15: error: expected ‘;’ before ‘}’ token
    5 |     c->count++
      |               ^
      |               ;
    6 | }
```

It's a missing semicolon at the end of line 5. There are no warnings, just that error.""",
        True,
        fails=1,
        unrecovered=True,
    ),
    Case(
        "traceback-import-error",
        "traceback",
        "run the server module directly: python app/server.py",
        WEB,
        [[sh("timeout 5 python app/server.py")], [rd("deploy/run.sh")]],
        """It fails at import time:

```
Traceback (most recent call last):
  File ".../app/server.py", line 6, in <module>
    from app.config import load
ModuleNotFoundError: No module named 'app'
```

Running `python app/server.py` puts `app/` itself on `sys.path`, not the repo root, so the \
package `app` can't be found. Run it as a module from the repo root instead: `python -m \
app.server` (that's what `deploy/run.sh` does).""",
        True,
        fails=1,
        unrecovered=True,
    ),
]

CASES = [*TRACEBACK]

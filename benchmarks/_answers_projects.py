"""The small projects the answer corpus's turns start from (each case copies the one it needs).

Line numbers matter: answers cite ``path:line`` in these files.
"""

from __future__ import annotations

KV_PARSER = '''"""Parse key=value lines into dicts."""

import re

LINE = re.compile(r"^\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*(.*?)\\s*$")
COMMENT = "#"


class ParseError(ValueError):
    """A line that is neither blank, a comment, nor key=value."""


def parse_line(line: str) -> dict[str, str] | None:
    """One line: a one-entry dict, or None for a blank line or a comment."""
    stripped = line.strip()
    if not stripped or stripped.startswith(COMMENT):
        return None
    match = LINE.match(line)
    if match is None:
        raise ParseError(f"not a key=value line: {line!r}")
    return {match.group(1): match.group(2)}


def parse(text: str, *, strict: bool = True) -> dict[str, str]:
    """All lines of ``text``; a later key wins. ``strict=False`` skips bad lines."""
    result: dict[str, str] = {}
    for line in text.splitlines():
        try:
            entry = parse_line(line)
        except ParseError:
            if strict:
                raise
            continue
        if entry:
            result.update(entry)
    return result
'''

KV_TESTS = """import pytest

from kvparse.parser import ParseError, parse, parse_line


def test_one_line():
    assert parse_line("a = 1") == {"a": "1"}


def test_blank_and_comment():
    assert parse_line("   ") is None
    assert parse_line("# note") is None


def test_later_key_wins():
    assert parse("a=1\\na=2") == {"a": "2"}


def test_bad_line_strict():
    with pytest.raises(ParseError):
        parse("oops")


def test_bad_line_lenient():
    assert parse("oops\\nb=3", strict=False) == {"b": "3"}
"""

KV = {
    "kvparse/__init__.py": '"""key=value parsing."""\n\nfrom kvparse.parser import parse\n\n'
    '__all__ = ["parse"]\n',
    "kvparse/parser.py": KV_PARSER,
    "tests/test_parser.py": KV_TESTS,
    "pyproject.toml": '[project]\nname = "kvparse"\nversion = "0.3.1"\n'
    'requires-python = ">=3.10"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
}

WEB_CONFIG = '''"""Settings for the web app, from the environment with defaults."""

import os

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
DEFAULT_WORKERS = 4
TIMEOUT_S = 30.0


def load(env=None):
    """The app's settings; APP_* variables override the defaults."""
    env = os.environ if env is None else env
    return {
        "host": env.get("APP_HOST", DEFAULT_HOST),
        "port": int(env.get("APP_PORT", DEFAULT_PORT)),
        "debug": env.get("APP_DEBUG", "0") == "1",
        "workers": int(env.get("APP_WORKERS", DEFAULT_WORKERS)),
        "timeout": float(env.get("APP_TIMEOUT", TIMEOUT_S)),
    }
'''

WEB_SERVER = '''"""A tiny JSON server over http.server."""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from app.config import load


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/health":
            self._send(200, {"status": "ok"})
        else:
            self._send(404, {"error": "not found"})

    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    settings = load()
    server = ThreadingHTTPServer((settings["host"], settings["port"]), Handler)
    print(f"listening on {settings['host']}:{settings['port']}")
    server.serve_forever()


if __name__ == "__main__":
    main()
'''

WEB_SETTINGS = """# Deployed settings; read by deploy/run.sh
[server]
host = "0.0.0.0"
port = 9090
workers = 8

[logging]
level = "info"
file = "/var/log/webapp/app.log"
"""

WEB_RUN = """#!/bin/sh
# Start the app with the deployed settings.
set -e
export APP_HOST=0.0.0.0
export APP_PORT=9090
export APP_WORKERS=8
exec python3 -m app.server
"""

WEB = {
    "app/__init__.py": "",
    "app/config.py": WEB_CONFIG,
    "app/server.py": WEB_SERVER,
    "config/settings.toml": WEB_SETTINGS,
    "deploy/run.sh": WEB_RUN,
    "README.md": "# webapp\n\nA tiny JSON service. Run `deploy/run.sh` to start it.\n",
}

INVENTORY = '''"""Stock kept per item name."""


class Inventory:
    def __init__(self):
        self.items = {}  # name -> (quantity, unit price)

    def add(self, name, quantity, price):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        held, _ = self.items.get(name, (0, price))
        self.items[name] = (held + quantity, price)

    def remove(self, name, quantity):
        if name not in self.items:
            raise KeyError(f"unknown item: {name}")
        held, price = self.items[name]
        if quantity > held:
            raise ValueError(f"only {held} of {name} in stock")
        self.items[name] = (held - quantity, price)

    def total_value(self):
        return sum(quantity for quantity, price in self.items.values())
'''

INVENTORY_TESTS = """import pytest

from inventory import Inventory


def test_add_then_remove():
    inv = Inventory()
    inv.add("bolt", 10, 0.5)
    inv.remove("bolt", 4)
    assert inv.items["bolt"] == (6, 0.5)


def test_remove_unknown():
    with pytest.raises(KeyError):
        Inventory().remove("nut", 1)


def test_remove_too_many():
    inv = Inventory()
    inv.add("bolt", 2, 0.5)
    with pytest.raises(ValueError):
        inv.remove("bolt", 3)


def test_total_value():
    inv = Inventory()
    inv.add("bolt", 10, 0.5)
    inv.add("nut", 4, 0.25)
    assert inv.total_value() == 6.0
"""

INV = {"inventory.py": INVENTORY, "test_inventory.py": INVENTORY_TESTS}

STATS = '''"""Small statistics helpers."""


def mean(values):
    return sum(values) / len(values)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def summary(values):
    return {"n": len(values), "mean": mean(values), "median": median(values)}


if __name__ == "__main__":
    import sys

    numbers = [float(x) for x in sys.argv[1:]]
    print(summary(numbers))
'''

STATS_P = {"stats.py": STATS}

SLUGIFY_JS = """'use strict';

const MAX_LENGTH = 60;

function slugify(text, separator = '-') {
  return text
    .normalize('NFKD')
    .replace(/[\\u0300-\\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, separator)
    .replace(new RegExp(`^${separator}+|${separator}+$`, 'g'), '')
    .slice(0, MAX_LENGTH);
}

module.exports = { slugify, MAX_LENGTH };
"""

SLUGIFY_TEST = """const test = require('node:test');
const assert = require('node:assert');
const { slugify } = require('../src/slugify');

test('lowercases and joins words', () => {
  assert.strictEqual(slugify('Hello World'), 'hello-world');
});

test('drops accents', () => {
  assert.strictEqual(slugify('Crème Brûlée'), 'creme-brulee');
});

test('custom separator', () => {
  assert.strictEqual(slugify('a b c', '_'), 'a_b_c');
});
"""

JS = {
    "package.json": '{\n  "name": "slugs",\n  "version": "1.2.0",\n  "private": true,\n'
    '  "scripts": {\n    "test": "node --test test/"\n  }\n}\n',
    "src/slugify.js": SLUGIFY_JS,
    "test/slugify.test.js": SLUGIFY_TEST,
}

BACKUP_SH = """#!/bin/bash
# Copy the data folder into backups/, one archive per day.
set -euo pipefail

SRC="${1:-data}"
DEST="${BACKUP_DIR:-backups}"
KEEP_DAYS=7

mkdir -p "$DEST"
stamp=$(date +%Y-%m-%d)
tar -czf "$DEST/data-$stamp.tar.gz" "$SRC"
find "$DEST" -name 'data-*.tar.gz' -mtime +"$KEEP_DAYS" -delete
echo "backed up $SRC to $DEST/data-$stamp.tar.gz"
"""

SHELL = {
    "scripts/backup.sh": BACKUP_SH,
    "data/notes.txt": "first note\nsecond note\n",
    "Makefile": "backup:\n\tbash scripts/backup.sh data\n\nclean:\n\trm -rf backups\n",
}

TODO_STORE = '''"""Todo items kept in a JSON file."""

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

DEFAULT_PATH = Path(os.environ.get("TODO_FILE", "~/.todo.json")).expanduser()


@dataclass
class Item:
    text: str
    done: bool = False
    priority: int = 2


def load(path=DEFAULT_PATH):
    if not path.exists():
        return []
    return [Item(**raw) for raw in json.loads(path.read_text())]


def save(items, path=DEFAULT_PATH):
    path.write_text(json.dumps([asdict(i) for i in items], indent=2))
'''

TODO_CLI = '''"""todo: a tiny command-line todo list."""

import argparse
from pathlib import Path

from todo import store


def build_parser():
    parser = argparse.ArgumentParser(prog="todo")
    parser.add_argument("--file", type=Path, default=store.DEFAULT_PATH)
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add")
    add.add_argument("text")
    add.add_argument("-p", "--priority", type=int, choices=[1, 2, 3], default=2)
    sub.add_parser("list")
    done = sub.add_parser("done")
    done.add_argument("index", type=int)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    items = store.load(args.file)
    if args.command == "add":
        items.append(store.Item(args.text, priority=args.priority))
    elif args.command == "done":
        items[args.index - 1].done = True
    elif args.command == "list":
        for number, item in enumerate(items, start=1):
            mark = "x" if item.done else " "
            print(f"{number}. [{mark}] {item.text} (p{item.priority})")
    store.save(items, args.file)


if __name__ == "__main__":
    main()
'''

TODO = {
    "todo/__init__.py": "",
    "todo/store.py": TODO_STORE,
    "todo/cli.py": TODO_CLI,
    "README.md": '# todo\n\n```\npython -m todo.cli add "buy milk" -p 1\n'
    "python -m todo.cli list\n```\n",
}

HTTP_CLIENT = '''"""A requests session with retries for the billing API."""

import logging

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

log = logging.getLogger(__name__)

BASE_URL = "https://billing.example.com/api/v2"
MAX_RETRIES = 3
BACKOFF_FACTOR = 0.5
RETRY_STATUSES = (429, 502, 503, 504)
TIMEOUT_S = 10


def make_session(token):
    session = requests.Session()
    retry = Retry(
        total=MAX_RETRIES,
        backoff_factor=BACKOFF_FACTOR,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=["GET", "PUT", "DELETE"],
    )
    session.mount("https://", HTTPAdapter(max_retries=retry))
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def get_invoice(session, invoice_id):
    response = session.get(f"{BASE_URL}/invoices/{invoice_id}", timeout=TIMEOUT_S)
    if response.status_code == 404:
        log.warning("invoice %s not found", invoice_id)
        return None
    response.raise_for_status()
    return response.json()
'''

HTTP = {
    "billing/__init__.py": "",
    "billing/client.py": HTTP_CLIENT,
    "requirements.txt": "requests==2.32.3\nurllib3==2.2.2\n",
}

C_MAIN = """#include <stdio.h>
#include "counter.h"

int main(void) {
    struct counter c = {0};
    for (int i = 0; i < 5; i++) {
        counter_add(&c, i);
    }
    printf("total=%d count=%d\\n", c.total, c.count);
    return 0;
}
"""

C_COUNTER_H = """#ifndef COUNTER_H
#define COUNTER_H

struct counter {
    int total;
    int count;
};

void counter_add(struct counter *c, int value);

#endif
"""

C_COUNTER = """#include "counter.h"

void counter_add(struct counter *c, int value) {
    c->total += value;
    c->count++
}
"""

C_PROJ = {
    "src/main.c": C_MAIN,
    "src/counter.h": C_COUNTER_H,
    "src/counter.c": C_COUNTER,
    "Makefile": "CFLAGS = -Wall -O2\n\ncounter: src/main.c src/counter.c\n"
    "\t$(CC) $(CFLAGS) -o $@ $^\n",
}

UNITS = '''"""Convert between length units."""

FACTORS = {
    "mm": 0.001,
    "cm": 0.01,
    "m": 1.0,
    "km": 1000.0,
    "in": 0.0254,
    "ft": 0.3048,
    "mi": 1609.344,
}


def convert(value, source, target):
    """``value`` in ``source`` units, expressed in ``target`` units."""
    try:
        return value * FACTORS[source] / FACTORS[target]
    except KeyError as e:
        raise ValueError(f"unknown unit: {e.args[0]}") from None


if __name__ == "__main__":
    print(convert(5, "km", "mi"))
    print(convert(12, "in", "cm"))
'''

UNITS_P = {"units.py": UNITS}

# Shared by several kinds of cases.

TOTAL_OLD = "        return sum(quantity for quantity, price in self.items.values())"

TOTAL_NEW = "        return sum(quantity * price for quantity, price in self.items.values())"

TOTAL_PLUS = TOTAL_NEW.replace("quantity * price", "quantity + price")

TODO_MAIN = '"""Run the CLI with `python -m todo`."""\n\nfrom todo.cli import main\n\nmain()\n'

EXPORT_TEST = """

def test_export_prefix():
    assert parse("export PATH_X = /opt/bin") == {"PATH_X": "/opt/bin"}
"""

LENIENT = '    assert parse("oops\\nb=3", strict=False) == {"b": "3"}\n'

EXPORT_OLD = 'LINE = re.compile(r"^\\s*([A-Za-z_]'

EXPORT_NEW = 'LINE = re.compile(r"^\\s*(?:export\\s+)?([A-Za-z_]'

BROKEN_JSON = {
    "config.json": '{\n  "name": "demo",\n  "port": 8080\n  "debug": true\n}\n',
    "README.md": "# demo\n\nSettings live in `config.json`.\n",
}

RUST = {
    "main.rs": """fn main() {
    let count = 0;
    for i in 1..=3 {
        count += i;
    }
    println!("count = {}", count);
}
""",
}

"""The fresh set's 22 intents: a tiny workspace, one objective check and three wordings each.

Wording 1 is a plain English instruction, 2 an English paraphrase (other verbs, other sentence
shape), 3 a non-English wording (``LANG`` names it) or, where ``LANG`` is "en", an unusual English
one (terse, lowercase, indirect). All three mean the same task and are judged by the same check:
the files at the end, and for a question the answer's value (with ``stop_reason`` "done"), never
its wording. ``changes`` names the start lines a task may rewrite or remove and the files it may
move (``_judging.worse_than_start``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import settings
from _judging import git, run_py, runs_and_prints, said, text_is

Check = Any  # (workspace, headless json result) -> bool


@dataclass
class Intent:
    name: str
    wordings: tuple[str, str, str]
    lang: str  # the third wording's language: de, es, fr, it, pt, or en (unusual English)
    check: Check
    files: dict[str, str] = field(default_factory=dict)
    changes: tuple[str, ...] = ()
    committed: bool = True


def ran(pattern: str) -> Check:
    """Some bash call's arguments match the pattern (the script was run, not only written)."""
    return lambda ws, r: any(
        c.get("name") == "bash" and re.search(pattern, json.dumps(c.get("arguments")))
        for c in r["tool_calls"]
    )


def kept(files: dict[str, str]) -> Check:
    """The files are as they began (a question or a report changes nothing)."""
    return lambda ws, r: all(
        (ws / n).is_file() and (ws / n).read_text() == t for n, t in files.items()
    )


def both(*checks: Check) -> Check:
    return lambda ws, r: all(check(ws, r) for check in checks)


def imports(ws: Path, code: str) -> bool:
    done = subprocess.run([sys.executable, "-c", code], cwd=ws, capture_output=True, timeout=30)
    return done.returncode == 0


SERVER_INI = {"server.ini": "[http]\nhost = 127.0.0.1\nport = 8000\ntimeout = 30\n"}
APP_TOML = {"app.toml": 'title = "shop"\ncache = true\nverbose = false\n'}
CART = {"cart.py": "def get_total(prices):\n    return sum(prices)\n\n\nprint(get_total([4, 6]))\n"}
DRAFT = {"draft.md": "# Plan\n- ship it\n"}
SHOPPING = {"shopping.txt": "eggs\nbread\njam\nbutter\n"}
TODO = {"todo.txt": "wash car\npay rent\n"}
AREA = {"area.py": "def square(n):\n    return n * n\n\n\nprint(square(4)\n"}
TEST_STATS = "from stats import mean\n\nassert mean([2, 4, 6]) == 4\nprint('ok')\n"
STATS = {
    "stats.py": "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n",
    "test_stats.py": TEST_STATS,
}
TEAM = {"team.txt": "Ana: design\nBen: backend\nCleo: testing\n"}
MAGIC = {"magic.py": "print(sum(i * i for i in range(1, 13)))\n"}  # 650
TEXTUTILS = {"textutils.py": "def shout(s):\n    return s.upper() + '!'\n"}
HELPERS = {"helpers.py": "def helper():\n    return 1\n"}
STORY = {"story.txt": "The cat sat.\nThe cat ran.\nA dog barked at the cat.\n"}
OLD_LOG = {"old.log": "stale entry\n", "keep.txt": "keep me\n"}
POEM = {"poem.txt": "roses are red\nviolets are blue\nsugar is sweet\n"}  # 9 words
BUILD = {"build.sh": "#!/bin/sh\necho built\n"}
README = {"readme.txt": "line one\nline two\n"}
TEMPLATE = {"template.cfg": "name = demo\nlevel = 1\n"}

INTENTS = [
    Intent(
        "create-file",
        (
            "Write the text keep it simple to a new file motto.txt",
            "Could you put keep it simple into a file called motto.txt?",
            "Leg bitte eine Datei motto.txt an, Inhalt: keep it simple",
        ),
        "de",
        text_is("motto.txt", "keep it simple"),
    ),
    Intent(
        "script-run",
        (
            "Create a Python file greet.py whose output is good morning, and run it",
            "I need greet.py, a small Python program printing good morning; write it and try it",
            "Crea un script de Python greet.py que imprima good morning y ejecútalo",
        ),
        "es",
        both(
            lambda ws, r: run_py(ws, "greet.py").lower() == "good morning",
            ran(r"(python3?\s+|\./)greet\.py"),
        ),
    ),
    Intent(
        "config-port",
        (
            "Change server.ini so that the port is 8081 instead of 8000",
            "bump the port in server.ini to 8081",
            "server.ini: port 8081 please",
        ),
        "en",
        lambda ws, r: (
            settings(ws / "server.ini") == {"host": "127.0.0.1", "port": "8081", "timeout": "30"}
            and "[http]" in (ws / "server.ini").read_text()
        ),
        SERVER_INI,
        changes=("port = 8000",),
    ),
    Intent(
        "toggle-bool",
        (
            "Set cache to false in app.toml",
            "Could you switch caching off in app.toml?",
            "In app.toml disattiva la cache, cioè metti cache a false",
        ),
        "it",
        lambda ws, r: (
            settings(ws / "app.toml") == {"title": '"shop"', "cache": "false", "verbose": "false"}
        ),
        APP_TOML,
        changes=("cache = true",),
    ),
    Intent(
        "rename-function",
        (
            "In cart.py, rename the function get_total to total, both the definition and the call",
            "get_total in cart.py ought to be named total; please update it wherever it is used",
            "Renomeie a função get_total para total no cart.py, inclusive onde ela é chamada",
        ),
        "pt",
        lambda ws, r: (
            "get_total" not in (ws / "cart.py").read_text()
            and "def total(" in (ws / "cart.py").read_text()
            and run_py(ws, "cart.py") == "10"
        ),
        CART,
        changes=("def get_total(prices):", "print(get_total([4, 6]))"),
    ),
    Intent(
        "rename-file",
        (
            "Rename the file draft.md to plan.md",
            "draft.md should be called plan.md",
            "Benenne draft.md bitte in plan.md um",
        ),
        "de",
        both(text_is("plan.md", "# Plan\n- ship it"), lambda ws, r: not (ws / "draft.md").exists()),
        DRAFT,
        changes=("draft.md",),
    ),
    Intent(
        "delete-line",
        (
            "In shopping.txt, delete the line that says jam",
            "drop the third line (jam) from shopping.txt",
            "Borra la línea jam de shopping.txt",
        ),
        "es",
        text_is("shopping.txt", "eggs\nbread\nbutter"),
        SHOPPING,
        changes=("jam",),
    ),
    Intent(
        "append-line",
        (
            "At the end of todo.txt, append a line reading call mom",
            "todo.txt needs one more item at the bottom: call mom",
            "one more line for todo.txt, last: call mom",
        ),
        "en",
        text_is("todo.txt", "wash car\npay rent\ncall mom"),
        TODO,
    ),
    Intent(
        "fix-syntax",
        (
            "area.py has a syntax error; fix it",
            "area.py won't run because of a typo in the code. Could you correct it?",
            "Correggi l'errore di sintassi in area.py",
        ),
        "it",
        lambda ws, r: run_py(ws, "area.py") == "16",
        AREA,
        changes=("print(square(4)",),
    ),
    Intent(
        "fix-test",
        (
            "Fix the bug in stats.py so that test_stats.py passes",
            "python3 test_stats.py is failing; please repair stats.py until it succeeds",
            "test_stats.py schlägt fehl, kannst du den Fehler in stats.py beheben?",
        ),
        "de",
        lambda ws, r: (
            (ws / "test_stats.py").is_file()
            and (ws / "test_stats.py").read_text() == TEST_STATS  # the test is not the fix
            and imports(ws, "import runpy; runpy.run_path('test_stats.py')")
        ),
        STATS,
        changes=("def mean(xs):", "return sum(xs) / (len(xs) + 1)"),
    ),
    Intent(
        "question",
        (
            "Who does the backend according to team.txt?",
            "Look in team.txt and tell me which person handles the backend",
            "¿Quién se encarga del backend según team.txt?",
        ),
        "es",
        # The name, not the whole file read back (every name in it).
        both(
            said("Ben"),
            lambda ws, r: not ("Ana" in r["result"] and "Cleo" in r["result"]),
            kept(TEAM),
        ),
        TEAM,
    ),
    Intent(
        "run-report",
        (
            "Execute magic.py with python3 and report its output",
            "What do you get when you run magic.py?",
            "Roda o magic.py e me diz o que ele imprime",
        ),
        "pt",
        both(said("650"), kept(MAGIC)),
        MAGIC,
    ),
    Intent(
        "commit",
        (
            "Commit CHANGELOG.md with the message 'add changelog'",
            "Please add CHANGELOG.md to git and record it in a commit titled 'add changelog'",
            "Fais un commit de CHANGELOG.md avec le message 'add changelog'",
        ),
        "fr",
        lambda ws, r: (
            git(ws, "log", "-1", "--format=%s") == "add changelog"
            and git(ws, "status", "--porcelain") == ""
        ),
        {"CHANGELOG.md": "## 0.1\n- first release\n"},
        committed=False,
    ),
    Intent(
        "add-function",
        (
            "In textutils.py, add a function whisper(s) that returns s.lower()",
            "textutils.py should also offer whisper(s), returning s in lowercase; can you add it?",
            "Füg in textutils.py eine Funktion whisper(s) hinzu, die s.lower() zurückgibt",
        ),
        "de",
        lambda ws, r: imports(
            ws,
            "from textutils import shout, whisper; assert whisper('HeY') + shout('a') == 'heyA!'",
        ),
        TEXTUTILS,
    ),
    Intent(
        "folder-file",
        (
            "Make a logs folder and inside it a file README.txt with the text: log files go here",
            "I need a logs directory holding a README.txt that says log files go here",
            "Crée un dossier logs avec un fichier README.txt dedans, contenu : log files go here",
        ),
        "fr",
        text_is("logs/README.txt", "log files go here"),
    ),
    Intent(
        "move-file",
        (
            "Move helpers.py into a new folder named lib",
            "helpers.py belongs in a lib directory, which doesn't exist yet; please put it there",
            "Sposta helpers.py in una nuova cartella lib",
        ),
        "it",
        both(
            text_is("lib/helpers.py", HELPERS["helpers.py"].strip()),
            lambda ws, r: not (ws / "helpers.py").exists(),
        ),
        HELPERS,
        changes=("helpers.py",),
    ),
    Intent(
        "replace-word",
        (
            "Replace the word cat with fox everywhere in story.txt",
            "In story.txt, swap cat for fox in every place it appears",
            "Troque todas as ocorrências de cat por fox em story.txt",
        ),
        "pt",
        text_is("story.txt", "The fox sat.\nThe fox ran.\nA dog barked at the fox."),
        STORY,
        changes=tuple(STORY["story.txt"].splitlines()),
    ),
    Intent(
        "delete-file",
        (
            "Delete the file old.log",
            "old.log is no longer needed, get rid of it",
            "old.log: not needed anymore, remove",
        ),
        "en",
        both(lambda ws, r: not (ws / "old.log").exists(), text_is("keep.txt", "keep me")),
        OLD_LOG,
        changes=("old.log",),
    ),
    Intent(
        "count-words",
        (
            "How many words does poem.txt contain?",
            "Tell me the number of words in poem.txt",
            "word count of poem.txt?",
        ),
        "en",
        both(said("9"), kept(POEM)),
        POEM,
    ),
    Intent(
        "exec-script",
        (
            "Give build.sh execute permission, then run it",
            "build.sh can't be run yet; chmod it and execute it",
            "build.sh - make it runnable + give it a go",
        ),
        "en",
        both(lambda ws, r: runs_and_prints(ws, "build.sh", "built"), ran(r"(\./|sh\s+)build\.sh")),
        BUILD,
    ),
    Intent(
        "insert-top",
        (
            "Insert the line DRAFT at the top of readme.txt",
            "Put DRAFT as the very first line of readme.txt, above everything else",
            "Ajoute la ligne DRAFT tout en haut de readme.txt",
        ),
        "fr",
        text_is("readme.txt", "DRAFT\nline one\nline two"),
        README,
    ),
    Intent(
        "copy-file",
        (
            "Copy template.cfg to a new file named local.cfg",
            "I'd like a duplicate of template.cfg called local.cfg",
            "need a copy of template.cfg, as local.cfg",
        ),
        "en",
        both(
            text_is("local.cfg", "name = demo\nlevel = 1"),
            text_is("template.cfg", "name = demo\nlevel = 1"),
        ),
        TEMPLATE,
    ),
]
assert len(INTENTS) == 22 and len({i.name for i in INTENTS}) == 22
assert sum(i.lang != "en" for i in INTENTS) >= 14, "at least 14 non-English third wordings"

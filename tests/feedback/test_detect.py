"""Which commands a project's files name, found without running any of its code; and real
``cargo test``/``go test`` runs where the toolchain is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from agent.config import Config, ConfigError, load_config
from agent.events import CheckFinished
from agent.feedback.detect import checks, detect_test
from agent.feedback.run import Feedback
from agent.permissions.rules import Permissions
from agent.sessions.store import Session
from server.paths import config_dir
from tests.agent.loop_kit import Face
from tests.feedback.conftest import python_project
from tools.tool import ToolContext

pytestmark = pytest.mark.project_checks
# Project code that leaves a mark if anything runs it.
TRAP = "import pathlib\npathlib.Path(__file__).with_name('ran').write_text('x')\n"


def test_a_python_project_gets_its_venv_ruff_and_pytest_and_nothing_runs(ws: Path) -> None:
    python_project(ws, "ruff", "pytest")
    (ws / "conftest.py").write_text(TRAP)
    (ws / "setup.py").write_text(TRAP)
    found = checks(ws, Config())
    lint, test = found["lint"], found["test"]
    assert lint.detected and lint.line.startswith(".venv/bin/ruff check ")
    assert lint.for_files(["a b.py", "notes.md"]).endswith(" 'a b.py'")  # only Python, quoted
    assert lint.for_files([]).endswith(" -- .") and not lint.applies(["notes.md"])
    assert lint.for_files(["-rf.py"]).endswith(" -- ./-rf.py")  # a file name is no option
    assert test.line == ".venv/bin/pytest -x -q"
    assert not (ws / "ran").exists()


def test_configured_commands_win_and_an_argv_list_is_quoted(ws: Path) -> None:
    python_project(ws, "ruff")
    found = checks(ws, Config(lint_cmd=["my lint", "{files}"], test_cmd="make check"))
    assert found["lint"].for_files(["x.py", "y z.md"]) == "'my lint' x.py 'y z.md'"  # any file
    assert found["test"].line == "make check" and not found["test"].detected


def test_package_json_names_npm_test_unless_it_is_the_placeholder(ws: Path) -> None:
    package = ws / "package.json"
    package.write_text(json.dumps({"scripts": {"test": "node -e 1", "pretest": "touch ran"}}))
    assert (found := detect_test(ws)) is not None and found.line == "npm test"
    package.write_text(
        json.dumps({"scripts": {"test": 'echo "Error: no test specified" && exit 1'}})
    )
    assert detect_test(ws) is None
    package.write_text("{not json")
    assert detect_test(ws) is None and checks(ws, Config()) == {}
    assert not (ws / "ran").exists()


@pytest.mark.usefixtures("beecode_dirs")
def test_bad_settings_are_one_line_errors(ws: Path) -> None:
    (ws / ".beecode").mkdir()
    (ws / ".beecode" / "config.toml").write_text("lint_cmd = 3\n")
    with pytest.raises(ConfigError, match=r"config.toml:1: lint_cmd: must be a string, not 3"):
        load_config(ws)
    (ws / ".beecode" / "config.toml").write_text("test_timeout_s = 3600\ncheck_rounds = 1\n")
    config = load_config(ws)  # an untrusted project may not raise beecode's limits
    assert config.test_timeout_s == 120.0 and config.check_rounds == 1
    assert "test_timeout_s" in config.ignored_project_settings


@pytest.mark.usefixtures("beecode_dirs")
def test_an_untrusted_project_cannot_name_the_commands_its_checks_run(ws: Path) -> None:
    (ws / ".beecode").mkdir()
    (ws / ".beecode" / "config.toml").write_text(
        'lint_cmd = "python lint.py"\ntest_cmd = ["python", "t.py"]\nauto_test = true\n'
    )
    config = load_config(ws)
    assert config.lint_cmd is None and config.test_cmd is None and config.auto_test
    assert {"lint_cmd", "test_cmd"} <= set(config.ignored_project_settings)
    assert checks(ws, config) == {}  # nothing found in the project's files either
    user = config_dir() / "config.toml"
    user.write_text(f"trusted_workspaces = [{json.dumps(str(ws))}]\n")
    trusted = load_config(ws)
    assert trusted.lint_cmd == "python lint.py" and trusted.test_cmd == ["python", "t.py"]
    assert set(checks(ws, trusted)) == {"lint", "test"}


async def _run_tests(ws: Path) -> CheckFinished:
    found = detect_test(ws)
    assert found is not None
    permissions = Permissions("yolo", [], [], ws, [])
    feedback = Feedback(Config(), ToolContext(ws), permissions, Session.create(ws))
    return await feedback.run(found, [], Face())


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed here")
async def test_a_failing_cargo_test_is_cut_to_its_failures(ws: Path) -> None:
    subprocess.run(
        ["cargo", "init", "--lib", "--vcs", "none", "--name", "demo", "--offline", str(ws)],
        check=True,
        capture_output=True,
    )
    lib = ws / "src" / "lib.rs"
    lib.write_text("#[test]\nfn adds() {\n    assert_eq!(2 + 2, 5);\n}\n")
    result = await _run_tests(ws)
    assert result.command == "cargo test" and result.status == "failed"
    assert result.output.startswith("failures:") and "adds" in result.output
    lib.write_text("#[test]\nfn adds() {\n    assert_eq!(2 + 2, 4);\n}\n")
    assert (await _run_tests(ws)).status == "passed"


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed here")
async def test_a_failing_go_test_is_cut_to_its_failures(ws: Path) -> None:
    (ws / "go.mod").write_text("module demo\n\ngo 1.20\n")
    test = 'package demo\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tt.Fatal("no")\n}\n'
    (ws / "add_test.go").write_text(test)
    result = await _run_tests(ws)
    assert result.command == "go test ./..." and result.status == "failed"
    assert "--- FAIL: TestAdd" in result.output

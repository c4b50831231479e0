"""The TUI's file-facing logic against real files and a real git repository: @path completion,
prompt history and /diff (/undo: tests/checkpoints)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.runtime.baseline import bench_report
from agent.tui.completion import complete, path_options
from agent.tui.gitdiff import NotARepository, uncommitted
from agent.tui.history import PromptHistory
from server.bench.report import machine
from server.bench.stats import Sample, as_json, speedup_by_mode, summarize


class TestPathCompletion:
    @pytest.fixture
    def tree(self, workspace: Path) -> Path:
        (workspace / "src").mkdir()
        (workspace / "src" / "main.py").write_text("")
        (workspace / "src" / "mod.py").write_text("")
        (workspace / "setup.cfg").write_text("")
        (workspace / ".git").mkdir()
        (workspace / ".env").write_text("")
        return workspace

    def test_lists_entries_with_directories_marked(self, tree: Path) -> None:
        assert path_options(tree, "s") == ["setup.cfg", "src/"]
        assert path_options(tree, "src/m") == ["src/main.py", "src/mod.py"]

    def test_hidden_only_when_asked_and_never_git(self, tree: Path) -> None:
        assert ".env" not in path_options(tree, "")
        assert path_options(tree, ".") == [".env"]

    def test_fragment_after_at_is_replaced(self, tree: Path) -> None:
        found = complete("look at @src/ma", 15, True, tree)
        assert found is not None and (found.start, found.end) == (8, 15)
        assert found.options == [("@src/main.py", "")]

    def test_at_inside_a_word_is_not_a_path(self, tree: Path) -> None:
        assert complete("mail me@s", 9, True, tree) is None

    def test_slash_commands_complete_on_the_first_line_only(self, tree: Path) -> None:
        found = complete("/mo", 3, True, tree)
        assert found is not None and [o[0] for o in found.options] == ["/model", "/mode"]
        assert complete("/mo", 3, False, tree) is None


class TestHistory:
    def test_walks_back_and_returns_to_the_draft(self, tmp_path: Path) -> None:
        history = PromptHistory(tmp_path / "h.jsonl")
        history.add("first")
        history.add("second\nline")
        assert history.older("draft") == "second\nline"
        assert history.older("ignored") == "first"
        assert history.older("ignored") is None
        assert history.newer() == "second\nline"
        assert history.newer() == "draft"
        assert history.newer() is None

    def test_persists_and_skips_a_torn_line(self, tmp_path: Path) -> None:
        path = tmp_path / "h.jsonl"
        PromptHistory(path).add("kept")
        with path.open("a") as out:
            out.write('"torn')
        assert PromptHistory(path).entries == ["kept"]


class TestDiff:
    def test_tracked_changes_and_untracked_files(self, changed_repo: Path) -> None:
        (changed_repo / "b.txt").write_text("new\n")
        diff, untracked = uncommitted(changed_repo)
        assert "-one\n+two" in diff and untracked == ["b.txt"]

    def test_outside_a_repository(self, workspace: Path) -> None:
        with pytest.raises(NotARepository, match="not inside a git repository"):
            uncommitted(workspace)


class TestBaseline:
    """The speed-up's divisor, read from `beecode bench` summaries built with its own code."""

    @staticmethod
    def summary(
        folder: Path, profile: str, speeds: dict[str, list[float]], **conditions: object
    ) -> None:
        samples = [
            Sample(f"p{i}", mode, 0, 0.7, 100, tok_s, 1.0, 10, 0, None, None)
            for mode, values in speeds.items()
            for i, tok_s in enumerate(values)
        ]
        folder.mkdir(parents=True)
        rows = summarize(samples)
        data = {
            "profile": profile,
            "model": "qwen",
            "rows": as_json(rows),
            "speedup_by_mode": speedup_by_mode(rows),
            **conditions,
        }
        (folder / "summary.json").write_text(json.dumps(data))

    def test_newest_run_of_the_profile_wins(self, tmp_path: Path) -> None:
        self.summary(tmp_path / "20260101-000000", "tiny", {"none": [10, 20, 30]})
        self.summary(tmp_path / "20260102-000000", "tiny", {"none": [40, 50, 60], "ngram": [99]})
        self.summary(tmp_path / "20260103-000000", "other", {"none": [1]})
        (tmp_path / "20260104-000000").mkdir()
        (tmp_path / "20260104-000000" / "summary.json").write_text('{"torn')
        report = bench_report("tiny", tmp_path)
        assert "Latest run 20260102-000000: profile tiny, qwen" in report
        assert "  no speculation: 50.0 tok/s" in report

    def test_bench_report_gives_the_latest_verdict(self, tmp_path: Path) -> None:
        self.summary(tmp_path / "20260101-000000", "tiny", {"none": [20, 40], "ngram": [50, 80]})
        report = bench_report("tiny", tmp_path)
        assert report[-4:] == [
            "Latest run 20260101-000000: profile tiny, qwen",
            "  no speculation: 30.0 tok/s",
            "  ngram: ×2.24 over no speculation",  # geometric mean of 2.5 and 2.0
            f"  from {tmp_path / '20260101-000000' / 'summary.json'}",
        ]
        assert bench_report("big", tmp_path)[-1] == "No run yet for profile big."

    def test_bench_report_says_when_a_mode_costs_speed(self, tmp_path: Path) -> None:
        self.summary(tmp_path / "20260101-000000", "tiny", {"none": [40], "ngram-mod": [38]})
        assert bench_report("tiny", tmp_path)[-2].startswith(
            "  ngram-mod costs speed on these prompts (0.95x of none): n-gram drafts pay only"
        )

    def test_bench_report_names_the_conditions_of_its_figures(self, tmp_path: Path) -> None:
        """A run's figures hold for its machine, load and build: the report says which, with
        the load now beside the load then."""
        info = machine()  # what `beecode bench` writes into its summary
        self.summary(
            tmp_path / "20260101-000000",
            "tiny",
            {"none": [20], "ngram": [30]},
            date="2026-01-01T00:00:00+0000",
            machine=info,
            interleaved=True,
            servers=[{"mode": "none", "build_info": "b7000-abc"}, {"build_info": "b7000-abc"}],
        )
        measured, engine = bench_report("tiny", tmp_path)[-3:-1]
        assert measured.startswith(
            f"  measured 2026-01-01T00:00:00+0000, on {info['cores']} cores, {info['cpu']}, "
            f"load {info['load_avg_1m']} (now "
        )
        assert measured.endswith("), modes interleaved")
        assert engine == "  engine b7000-abc"

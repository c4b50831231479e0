"""The catalogue (compact, stable, capped), arguments, and what activation hands the model."""

from __future__ import annotations

import math
from pathlib import Path

from skills.disclose import CATALOGUE_HEAD, activation, catalogue, skill_contents, substitute
from skills.skill import Skill, read_skill
from tests.skills.conftest import write_skill


def estimate(text: str) -> int:
    return math.ceil(len(text) / 3.5)


def make(tmp_path: Path, name: str, description: str = "Does a thing. Use when asked.") -> Skill:
    text = f"---\nname: {name}\ndescription: {description}\n---\nDo $1 then $2; all: $ARGUMENTS\n"
    return read_skill(write_skill(tmp_path, name, text, **{"scripts__go.py": "x"}), "user")


def test_catalogue_lists_names_and_descriptions_only(tmp_path: Path) -> None:
    skills = [make(tmp_path, "alpha"), make(tmp_path, "beta")]
    text = catalogue(skills, estimate)
    assert text.splitlines() == [
        CATALOGUE_HEAD,
        "- alpha: Does a thing. Use when asked.",
        "- beta: Does a thing. Use when asked.",
    ]
    assert str(tmp_path) not in text and "Do " not in text  # no paths, no bodies
    assert catalogue(skills, estimate) == text  # byte-stable


def test_no_model_invocable_skill_no_catalogue(tmp_path: Path) -> None:
    text = "---\nname: manual\ndescription: d\ndisable-model-invocation: true\n---\nb\n"
    manual = read_skill(write_skill(tmp_path, "manual", text), "user")
    assert catalogue([manual], estimate) == ""


def test_the_cap_shortens_descriptions_first(tmp_path: Path) -> None:
    skills = [make(tmp_path, f"s{n}", "long words " * 40) for n in range(3)]
    full = catalogue(skills, estimate, cap=10_000)
    capped = catalogue(skills, estimate, cap=estimate(full) - 1)
    assert len(capped.splitlines()) == 4  # every skill still listed
    assert all(line.endswith("…") for line in capped.splitlines()[1:])
    assert estimate(capped) <= estimate(full) - 1


def test_then_drops_the_tail_and_says_so(tmp_path: Path) -> None:
    skills = [make(tmp_path, f"s{n}", "long words " * 40) for n in range(6)]
    capped = catalogue(skills, estimate, cap=120)
    lines = capped.splitlines()
    assert estimate(capped) <= 120
    assert lines[-1].startswith("(") and "not listed: over the 120-token cap" in lines[-1]
    listed = [line for line in lines if line.startswith("- ")]
    assert 0 < len(listed) < 6 and listed[0].startswith("- s0:")  # the tail goes, not the head


def test_arguments_and_positionals() -> None:
    assert substitute("a $1 b $2 c $ARGUMENTS", 'one "two words"') == (
        'a one b two words c one "two words"'
    )
    assert substitute("missing $3 and $10", "x") == "missing  and $10"
    assert substitute("no placeholder", "extra") == "no placeholder\n\nARGUMENTS: extra\n"
    assert substitute("no placeholder", "  ") == "no placeholder"
    assert substitute("open $1", 'a "quote') == "open a"


def test_activation_gives_body_folder_and_file_list(tmp_path: Path) -> None:
    skill = make(tmp_path, "alpha")
    text = activation(skill, "x y")
    assert text.startswith('<skill_content name="alpha">\nDo x then y; all: x y\n</skill_content>')
    assert f"The skill's own files, in {skill.root}:" in text
    assert "<skill_resources>\nscripts/go.py\n</skill_resources>" in text
    assert "name: alpha" not in text  # the frontmatter stays out
    assert skill_contents(f"before {text} after") == [text.split("\nThe skill's")[0]]

"""Reading SKILL.md leniently: every quirk of real skill folders, and the ones that stay broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from skills.skill import MAX_DESCRIPTION, SkillError, read_skill, tool_list
from tests.skills.conftest import write_skill


def test_every_field_of_the_spec_and_other_agents(tmp_path: Path) -> None:
    location = write_skill(
        tmp_path,
        "release-notes",
        "---\nname: release-notes\ndescription: Draft release notes. Use for a changelog.\n"
        "license: Apache-2.0\ncompatibility: needs git\nversion: 1.2.0\n"
        "argument-hint: '[version]'\ndisable-model-invocation: true\nuser-invocable: false\n"
        "metadata:\n  author: someone\n  tags:\n    nested: {deep: 1}\n"
        "---\n# Release notes\n\nRun scripts/collect.py.\n",
    )
    skill = read_skill(location, "project")
    assert (skill.name, skill.scope, skill.root) == ("release-notes", "project", location.parent)
    assert skill.description == "Draft release notes. Use for a changelog."
    assert skill.argument_hint == "[version]"
    assert not skill.model_invocable and not skill.user_invocable
    assert skill.fields["metadata"]["tags"]["nested"] == {"deep": 1}
    assert skill.fields["version"] == "1.2.0" and skill.fields["license"] == "Apache-2.0"
    assert skill.body == "# Release notes\n\nRun scripts/collect.py.\n" and not skill.warnings


@pytest.mark.parametrize(
    "front",
    [
        "description: |\n  Line one\n  line two.\n",
        "description: >-\n  Line one\n  line two.\n",
        'description: "Line one\n  line two."\n',
    ],
    ids=["literal-block", "folded-block", "quoted-multiline"],
)
def test_multi_line_descriptions_become_one_line(tmp_path: Path, front: str) -> None:
    skill = read_skill(write_skill(tmp_path, "multi", f"---\n{front}---\nbody\n"), "user")
    assert skill.description == "Line one line two."


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("\n  - Read\n  - Bash(git status:*)", ("Read", "Bash(git status:*)")),
        (" Read, Grep, Bash", ("Read", "Grep", "Bash")),
        (
            " Bash(git add:*) Bash(git commit:*) Read",
            ("Bash(git add:*)", "Bash(git commit:*)", "Read"),
        ),
    ],
    ids=["yaml-list", "comma-string", "space-string"],
)
def test_allowed_tools_in_every_shape(
    tmp_path: Path, value: str, expected: tuple[str, ...]
) -> None:
    text = f"---\nname: tools\ndescription: d\nallowed-tools:{value}\n---\nbody\n"
    assert read_skill(write_skill(tmp_path, "tools", text), "user").allowed_tools == expected


def test_folder_name_differs_from_name_loads_with_a_warning(tmp_path: Path) -> None:
    skill = read_skill(
        write_skill(tmp_path, "folder", "---\nname: other\ndescription: d\n---\n"), "user"
    )
    assert skill.name == "other" and "differs from its folder" in skill.warnings[0]


def test_no_name_takes_the_folder_name(tmp_path: Path) -> None:
    skill = read_skill(
        write_skill(tmp_path, "from-folder", "---\ndescription: d\n---\nb\n"), "user"
    )
    assert skill.name == "from-folder" and not skill.warnings


def test_a_name_beyond_the_spec_becomes_a_usable_one(tmp_path: Path) -> None:
    skill = read_skill(
        write_skill(tmp_path, "bad_Name", "---\nname: bad_Name\ndescription: d\n---\n"), "user"
    )
    assert skill.name == "bad-name" and "not lowercase" in skill.warnings[0]


def test_crlf_endings_and_a_bom(tmp_path: Path) -> None:
    text = "\ufeff---\r\nname: windows\r\ndescription: Made on Windows.\r\n---\r\n"
    text += "Step one.\r\nStep two.\r\n"
    skill = read_skill(write_skill(tmp_path, "windows", text.encode("utf-8")), "user")
    assert skill.name == "windows" and skill.description == "Made on Windows."
    assert skill.body == "Step one.\nStep two.\n"


def test_over_long_description_loads_with_a_warning(tmp_path: Path) -> None:
    long = "word " * 300
    skill = read_skill(write_skill(tmp_path, "long", f"---\ndescription: {long}\n---\n"), "user")
    assert len(skill.description) > MAX_DESCRIPTION and "characters" in skill.warnings[0]


def test_unquoted_colon_is_retried_quoted(tmp_path: Path) -> None:
    text = "---\nname: colon\ndescription: Use this when: the user asks: twice\n---\nbody\n"
    skill = read_skill(write_skill(tmp_path, "colon", text), "user")
    assert skill.description == "Use this when: the user asks: twice"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\nname: nodesc\n---\nbody\n", "no description"),
        ("# Just markdown\n", "no YAML frontmatter"),
        ("---\nname: open\ndescription: d\n", "no closing"),
        ("---\ndescription: [unclosed\nname: x\n---\n", "not valid YAML"),
        ("---\n- a\n- b\n---\n", "not a mapping"),
    ],
    ids=["no-description", "no-frontmatter", "unclosed", "bad-yaml", "a-list"],
)
def test_broken_folders_say_why(tmp_path: Path, text: str, reason: str) -> None:
    with pytest.raises(SkillError, match=reason):
        read_skill(write_skill(tmp_path, "broken", text), "user")


def test_tool_list_of_nothing() -> None:
    assert tool_list(None) == () and tool_list("") == ()

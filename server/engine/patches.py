"""Changes beecode makes to an upstream llama.cpp tree before building it.

One change: the server honours ``"speculative.n_max": 0`` in a request, drafting nothing for it,
as BeeLlama already does; beecode's speculation brake (server.brake) needs it. Upstream parses
per-request speculative fields only inside ``#if 0`` (tools/server/server-schema.cpp, b11434:
"we disable speculative parameter adjustments for now"). A tree whose text has moved is built
unchanged and its record says so; the brake then finds out from the server's replies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edit:
    file: str  # relative to the source tree
    anchor: str  # text that occurs exactly once; the insert goes right after it
    insert: str


@dataclass(frozen=True)
class Patch:
    name: str
    edits: tuple[Edit, ...]


REQUEST_DRAFT_OFF = Patch(
    "request-draft-off",
    (
        Edit(
            "tools/server/server-schema.cpp",
            "    // Speculative decoding params\n    //\n",
            "\n    // beecode: 0 turns drafting off for one request, as in BeeLlama\n"
            '    add((new field_num("speculative.n_max", params.speculative.draft.n_max))\n'
            "        ->set_hard_limits(0, INT32_MAX)\n"
            '        ->set_desc("0: no drafting for this request"));\n',
        ),
        Edit(
            "tools/server/server-context.cpp",
            "    int get_n_draft_max() const {\n        GGML_ASSERT(task);\n\n"
            "        if (!can_speculate()) {\n            return 0;\n        }\n",
            "\n        if (task->params.speculative.draft.n_max == 0) {\n"
            "            return 0; // beecode: the request asked for no drafting\n        }\n",
        ),
    ),
)

UPSTREAM_PATCHES = (REQUEST_DRAFT_OFF,)


def apply_patches(tree: Path, patches: tuple[Patch, ...] = UPSTREAM_PATCHES) -> list[str]:
    """Apply each patch whose anchors all occur once; return the names applied (or found
    applied already). A patch is applied whole or not at all."""
    applied: list[str] = []
    for patch in patches:
        texts: dict[Path, str] = {}
        for edit in patch.edits:
            path = tree / edit.file
            try:
                text = texts.get(path) or path.read_text()
            except OSError:
                break
            if text.count(edit.anchor) != 1:
                break
            at = text.index(edit.anchor) + len(edit.anchor)
            if not text.startswith(edit.insert, at):  # a tree patched before is left as it is
                texts[path] = text[:at] + edit.insert + text[at:]
        else:
            for path, text in texts.items():
                path.write_text(text)
            applied.append(patch.name)
    return applied

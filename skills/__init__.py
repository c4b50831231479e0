"""Agent Skills (agentskills.io): reading SKILL.md folders, finding them, disclosing them to
the model; the bundled skills live in ``bundled/`` (package data)."""

"""Whether a tool call runs: modes, allow and deny rules, and the answers the user chose to keep."""

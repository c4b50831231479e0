"""Sessions on disk: one JSONL file per session, listed, resumed and appended to."""

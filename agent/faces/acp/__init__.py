"""``beecode acp``: beecode as an Agent Client Protocol agent over stdio, for editors that host
agents (Zed, Toad). A face like the TUI and headless mode: it drives the same ``Runtime`` and
turns the core's typed events into ACP session updates (``agent.faces.acp.updates``)."""

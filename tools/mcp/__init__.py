"""MCP servers: connected from config, their tools offered in the registry, calls relayed."""

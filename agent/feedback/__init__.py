"""The project's own checks fed back to the model: lint, tests, a language server's errors."""

"""What the faces (the TUI and headless mode) share with the core, and the headless face itself."""

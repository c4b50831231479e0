"""The server's command line: `beecode server ...`, `beecode doctor`, and the progress they draw."""

"""Notifying the user away from the terminal: when a turn ends or a call waits for approval
and the terminal is not focused (Textual's AppBlur/AppFocus keep ``app.app_focus``), the
terminal's own notification written through Textual's driver (so it never lands in the
middle of a frame), and a desktop one where notify-send or osascript is there.

``notifications`` (config): auto (both), terminal, desktop, off. The notify command and the
Notification hooks are the core's (``agent.hooks.session``): they run in every face."""

from __future__ import annotations

import os
import subprocess

from textual.app import App

from agent.hooks.notify import desktop_command, terminal_escape


class AwayNotifier:
    def __init__(self, app: App[None], mode: str) -> None:
        self.app, self.mode = app, mode

    def __call__(self, title: str, body: str) -> None:
        if self.mode == "off" or self.app.app_focus:
            return
        driver = self.app._driver  # Textual writes its own escapes (the clipboard's) so too
        if self.mode in ("auto", "terminal") and driver is not None:
            driver.write(terminal_escape(title, body, dict(os.environ)))
        if self.mode in ("auto", "desktop") and (command := desktop_command(title, body)):
            try:  # not waited on: the notifier process goes on by itself
                subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            except OSError:
                pass  # no desktop notification: the terminal's still went out

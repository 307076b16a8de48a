"""The narrow collaborators the window's controllers get instead of the window: where
feedback is said (the line under the transcript, the status bar), and the protocols of
the command runner and the task spawner. The wiring module
(:mod:`ikgui.ui.window.assembly`) builds them and hands each controller what it uses."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from PySide6.QtWidgets import QStatusBar


class Spawner(Protocol):
    """Runs work that waits as a named task of the window (shut down with it)."""

    def __call__(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]: ...


class Runner(Protocol):
    """Runs what the user asked for against the session; an error becomes one line."""

    def guard(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def run(self, name: str, /, **arguments: Any) -> asyncio.Task[Any]: ...


class Feedback:
    """Where the window says what happened: the line under the transcript (kept until
    the next action) and the status bar's passing messages (the caller makes them one
    line of plain text)."""

    def __init__(self, line: Callable[[str, bool], None], bar: QStatusBar) -> None:
        self._line = line
        self.bar = bar

    def show(self, text: str, error: bool = False) -> None:
        self._line(text, error)

    def status(self, text: str, ms: int = 0) -> None:
        self.bar.showMessage(text, ms)

    def current_status(self) -> str:
        return self.bar.currentMessage()

    def clear_status(self) -> None:
        self.bar.clearMessage()

"""The one asyncio loop of the window: qasync's Qt-driven loop, plus the async-generator
hooks qasync leaves out on Linux (without them, leaving an ``async for`` over an httpx
stream early prints "async generator ignored GeneratorExit").

This is the only module that imports qasync; PySide6 is imported first so qasync
picks it (it prefers PyQt6 when both are installed).
"""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

import qasync
from PySide6.QtCore import qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from ikgui.ui.bugs import qt_message

#: How many turns the loop takes once stopped, for what is ready then (each is a few µs
#: when nothing is).
LAST_TURNS = 24


class EventLoop(qasync.QEventLoop):  # type: ignore[misc]
    def run_forever(self) -> Any:
        previous = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(
            firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook
        )
        try:
            return super().run_forever()
        finally:
            self._last_turns()
            sys.set_asyncgen_hooks(*previous)

    def _last_turns(self) -> None:
        """qasync runs Qt's events "one last time" once the loop has stopped, outside it:
        a task stepped then finds no running loop (anyio raises, so an HTTP stream's
        finaliser fails with nobody to hear it). What is ready runs here, inside it."""
        if QApplication.instance() is None:
            return
        asyncio.events._set_running_loop(self)
        try:
            # A finaliser's task is created, then steps, on later turns; closing one
            # generator leaves the next one (httpx's stream nests five) to its own.
            for _ in range(LAST_TURNS):
                QApplication.processEvents()
        finally:
            asyncio.events._set_running_loop(None)


def application(argv: list[str] | None = None) -> QApplication:
    """The process's QApplication (created on first use)."""
    app = QApplication.instance()
    if app is None:
        qInstallMessageHandler(qt_message)  # to the log, by severity
        app = QApplication(argv if argv is not None else [sys.argv[0]])
    assert isinstance(app, QApplication)
    return app


def new_loop() -> EventLoop:
    """A loop over the process's QApplication (what tests and ``app.main`` use).

    Closing the last window must not stop the loop: the window's shutdown still runs
    on it, and the application decides when to end.
    """
    app = application()
    app.setQuitOnLastWindowClosed(False)
    return EventLoop(app)


def keep_long_lived() -> None:
    """What was just made lives as long as the window shows it (a page of the sidebar's
    rows): out of the collector's full passes, which otherwise walk every loaded row
    again and again (10,000 rows: a 20–60 ms pause as pages arrive, issue 26). The
    young generations are collected first, so the few cycles just made and dropped are
    freed rather than kept; what is frozen is still freed by reference counting, so
    what freezes must not hold cycles once dropped (the sidebar's nodes break theirs).
    Nothing while the collector is off: that is the start-up, whose young generations
    hold everything made since (a collection of them would cost ~80 ms), and which
    freezes it all once the window is painted (``ikgui.app.root``)."""
    if gc.isenabled():
        gc.collect(1)
        gc.freeze()

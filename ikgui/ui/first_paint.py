"""Work that the window's first paint does not need runs right after it.

:class:`FirstPaint` watches a top-level widget for its first paint event and then, from
the event loop (two turns later: after the whole paint pass and what it queued), runs
the callbacks handed to :meth:`FirstPaint.then` and wakes the coroutines awaiting
:meth:`FirstPaint.wait`. A widget that is not visible when the event loop first turns (a
window built and never shown) is not waited for: its deferred work runs then; nor is a
window the system does not expose for a while (``LATEST_MS``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

#: The deferred work runs by then even if no paint came.
LATEST_MS = 2000


class FirstPaint(QObject):
    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self._widget = widget
        self._callbacks: list[Callable[[], None]] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._scheduled = False
        self.done = False
        widget.installEventFilter(self)
        QTimer.singleShot(0, self, self._if_hidden)
        QTimer.singleShot(LATEST_MS, self, self._at_latest)

    def then(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` after the first paint (at once if that is past)."""
        if self.done:
            callback()
        else:
            self._callbacks.append(callback)

    async def wait(self) -> None:
        """Return once the first paint is past."""
        if self.done:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        await future

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self._scheduled:
            self._schedule()
        return False

    def _if_hidden(self) -> None:
        if not self._scheduled and not self._widget.isVisible():
            self._schedule()

    def _at_latest(self) -> None:
        if not self._scheduled:
            self._schedule()

    def _schedule(self) -> None:
        self._scheduled = True
        self._widget.removeEventFilter(self)
        QTimer.singleShot(0, self, lambda: QTimer.singleShot(0, self, self._run))

    def _run(self) -> None:
        self.done = True
        callbacks, self._callbacks = self._callbacks, []
        waiters, self._waiters = self._waiters, []
        for future in waiters:
            if not future.done():
                future.set_result(None)
        for callback in callbacks:
            callback()

"""The status bar's "Reconnecting…": shown while the store's database thread has waited
for the server longer than :data:`AFTER_SECONDS` (a PostgreSQL server stopped, or the
network gone), removed as soon as it answers. The window keeps what it shows meanwhile.

Any store with ``unanswered_for()`` (seconds, 0 when nothing waits) can be watched; the
check is a dictionary read and a clock read, four times a second."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QStatusBar

#: Said while the database does not answer.
TEXT = "Reconnecting…"
#: How long a request may wait before the window says so (a busy server answers well
#: within it; a stopped one never does).
AFTER_SECONDS = 1.0
#: How often the wait is looked at.
CHECK_MS = 250


class ReconnectingLine(QLabel):
    def __init__(self, unanswered_for: Callable[[], float], bar: QStatusBar) -> None:
        super().__init__(TEXT, bar)
        self.setObjectName("reconnecting")
        self.setAccessibleName("Database connection")
        self.setToolTip(
            "The database server has not answered for a while. What the window shows is "
            "kept, and what you write is saved once it answers."
        )
        self.hide()
        self._unanswered_for = unanswered_for
        bar.addPermanentWidget(self)
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    def check(self) -> None:
        try:
            waiting = self._unanswered_for() > AFTER_SECONDS
        except Exception:  # a closed store: nothing waits any more
            waiting = False
        if waiting != self.isVisible():
            self.setVisible(waiting)


def watch_store(store: object, bar: QStatusBar) -> ReconnectingLine | None:
    """A :class:`ReconnectingLine` in ``bar`` for a store with a database thread."""
    unanswered_for = getattr(store, "unanswered_for", None)
    if not callable(unanswered_for):
        return None
    return ReconnectingLine(unanswered_for, bar)

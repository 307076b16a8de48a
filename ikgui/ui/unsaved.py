"""The window's waiting states (SPEC §11): changes the database refused wait in memory
(``session.writes``) and are retried with back-off; a send waits while another process
writes a reply in the same conversation (the status bar says so).

A plain-text status-bar item shows it ("Not saved yet: the disk is full — retrying in
8 s") with a "Retry now" button; it is never modal. Its count and reason are the window
state's (:attr:`ikgui.ui.window.state.WindowState.writes`): the chrome draws them. Once
everything is written the transcript is shown again from the replayed state (real event
ids). Closing the window
while changes wait warns once; closing again (or any shutdown) tries a last time and
puts what still waits in a recovery file next to the database.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from ikgui.local import recovery
from ikgui.ui.plain import tooltip
from ikgui.ui.window.state import Writes

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.window.collaborators import Feedback

#: Closing, the last writes may wait this long for a database server (seconds) before
#: they go to a recovery file (the window no longer takes typing then).
CLOSING_SECONDS = 10.0


def _summary(reason: str) -> str:
    """``the disk is full: no room left in /x`` -> ``the disk is full`` (the tooltip and
    the close warning say the rest)."""
    return reason.partition(": ")[0].rstrip(".")


class UnsavedIndicator(QWidget):
    def __init__(self, session: Session, feedback: Feedback, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.feedback = feedback
        self.setObjectName("unsavedIndicator")
        self.label = QLabel(self)
        self.label.setObjectName("unsavedStatus")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.retry_button = QPushButton("Retry now", self)
        self.retry_button.setObjectName("retryWritesButton")
        self.retry_button.setAccessibleName("Retry saving now")
        self.retry_button.setFlat(True)
        self.retry_button.clicked.connect(self.retry_now)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.retry_button)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._countdown)
        self._warned = False
        #: The ``Error:`` line of the last shutdown that needed a recovery file.
        self.rescued: str | None = None
        #: The writes the window state holds (drawn by :meth:`show_writes`).
        self.writes = Writes()
        #: Reads the writes waiting into the window state again (the wiring sets it).
        self.redraw: Callable[[], None] = lambda: self.show_writes(self.writes)
        feedback.bar.insertPermanentWidget(0, self)
        self.hide()

    def refresh(self) -> None:
        """Read the writes waiting again (through the window state)."""
        self.redraw()

    def show_writes(self, writes: Writes) -> None:
        """Show the window state's ``writes`` (and count down to the next retry)."""
        self.writes = writes
        if not writes.count:
            self._tick.stop()
            self._warned = False
            self.hide()
            return
        wait = self.session.writes.seconds_to_retry()
        when = "retrying…" if wait is None else f"retrying in {math.ceil(wait)} s"
        reason = _summary(writes.reason)
        self.label.setText(
            f"Not saved yet: {reason} — {when}" if reason else f"Not saved yet — {when}"
        )
        count = writes.count
        self.setToolTip(
            tooltip(
                f"{count} change{'s' if count != 1 else ''} wait to be written to the "
                f"database. {writes.error} They stay in memory and are written in order "
                "as soon as there is room."
            )
        )
        if not self._tick.isActive():
            self._tick.start()
        self.show()

    def _countdown(self) -> None:
        self.redraw()  # (the chrome draws them if they changed)
        if self.writes.count:
            self.show_writes(self.writes)  # the seconds to the next retry

    def retry_now(self) -> None:
        self.session.writes.retry_now()
        self.refresh()

    def state_replaced(self) -> None:
        """Saved at last (or replayed after another sender): the wait is over."""
        if self.feedback.current_status().startswith("Waiting for the reply"):
            self.feedback.clear_status()
        self.refresh()

    def send_waiting(self, conv_id: str) -> None:
        seconds = math.ceil(self.session.send_wait)
        self.feedback.status(
            f"Waiting for the reply another ikgui is writing in {conv_id} (up to {seconds} s)…",
            seconds * 1000,
        )

    # -- closing -----------------------------------------------------------------------
    def may_close(self) -> bool:
        """``False`` (and a warning) the first time the window closes with changes waiting."""
        writes = self.session.writes
        if not writes or self._warned:
            return True
        self._warned = True
        self.retry_now()
        if not writes:
            return True
        self.feedback.show(
            f"Some changes are not saved yet ({writes.reason.rstrip('.')}). Close again to put "
            "them in a recovery file next to the database, or free some space first.",
            error=True,
        )
        return False

    async def shutdown(self) -> None:
        """Stop retrying; write what waits, or put it in a recovery file (and say where)."""
        await self.session.writes.stop()
        patience = getattr(self.session.store, "answer_within", None)
        if callable(patience):  # (a server's store) what waits may take longer now
            patience(CLOSING_SECONDS)
        path = getattr(self.session.store, "path", None)  # None: a PostgreSQL store
        database = Path(path) if path is not None else _data_folder() / "ikgui.db"
        # A server's store is named as it is ("PostgreSQL user@host:5432/db"), never the
        # SQLite file nobody uses (whose folder only takes the recovery file).
        dialect = getattr(self.session.store, "dialect", None)
        name = dialect.describe() if path is None and dialect is not None else None
        self.rescued = recovery.rescue(self.session, database, name)
        if self.rescued:
            print(self.rescued, file=sys.stderr)
        self._tick.stop()


def _data_folder() -> Path:
    """Where a server-backed store's recovery files go: ikgui's own data folder."""
    from ikgui.local.paths import resolve

    return resolve().database.parent

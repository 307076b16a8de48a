"""Start-up while the database server cannot be reached: one plain window that says so and
keeps retrying, then gives way to the main window.

The store raises ``DatabaseUnreachable`` (a ``StorageError`` with ``.where`` =
"host:port") when a PostgreSQL server does not answer. :func:`open_when_reachable` shows
:class:`DatabaseWaitPage` — "Cannot reach the database at host:5432 — retrying", the
reason in smaller text, a countdown, "Retry now" and "Quit", and how to choose another
store — and tries again with back-off (``FIRST_DELAY`` doubling to ``MAX_DELAY``). Before
each try a TCP connection to host:port is attempted on a worker thread, so a server that
is still away never freezes this window; once the port answers, the real start-up runs.
"""

from __future__ import annotations

import asyncio
import math
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.errors import DatabaseUnreachable, StorageError
from ikgui.ui.plain import line, make_plain

T = TypeVar("T")

#: Seconds between tries: doubling from the first to the last.
FIRST_DELAY = 1.0
MAX_DELAY = 15.0
#: How long the pre-check waits for the server's port to answer.
PROBE_TIMEOUT = 3.0


def unreachable_where(exc: BaseException) -> str | None:
    """ "host:port" when ``exc`` says the database server did not answer, else ``None``."""
    return exc.where if isinstance(exc, DatabaseUnreachable) else None


def reason_of(exc: StorageError) -> str:
    """The cause without the sentence around it: "Cannot reach the database at h:p
    (connection refused)" -> "connection refused"."""
    where = unreachable_where(exc) or ""
    lead = f"Cannot reach the database at {where}"
    text = exc.reason if exc.reason != exc.message else exc.message
    if text.startswith(lead):
        text = text[len(lead) :].strip().removeprefix("(").removesuffix(")").strip()
    return text


def port_answers(where: str, timeout: float = PROBE_TIMEOUT) -> str:
    """ "" when a TCP connection to ``where`` ("host:port", "[v6]:port") opens, else why
    not (one plain line). An address it cannot read counts as answering (the real
    attempt decides)."""
    host, _, port = where.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not host or not port.isdigit():
        return ""
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return ""
    except OSError as exc:
        return (exc.strerror or str(exc) or type(exc).__name__).rstrip(".").lower()


class DatabaseWaitPage(QWidget):
    """The one window shown while the database is away (plain text throughout)."""

    retry_clicked = Signal()
    quit_clicked = Signal()

    def __init__(self, where: str, reason: str, config: Path | None = None) -> None:
        super().__init__()
        self.setObjectName("databaseWait")
        self.setWindowTitle("ikgui — waiting for the database")
        self.headline = self._label("databaseWaitHeadline", line(headline(where)))
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.headline.setFont(font)
        self.reason = self._label("databaseWaitReason", "")
        self.status = self._label("databaseWaitStatus", "")
        self.busy = QProgressBar(self)
        self.busy.setObjectName("databaseWaitBusy")
        self.busy.setAccessibleName("Waiting for the database")
        self.busy.setRange(0, 0)  # no known end: Qt animates it
        self.busy.setTextVisible(False)
        self.busy.setFixedHeight(6)
        self.hint = self._label("databaseWaitHint", hint_text(config))
        self.retry_button = QPushButton("Retry now", self)
        self.retry_button.setObjectName("databaseRetryButton")
        self.retry_button.setDefault(True)
        self.retry_button.clicked.connect(self.retry_clicked)
        self.quit_button = QPushButton("Quit", self)
        self.quit_button.setObjectName("databaseQuitButton")
        self.quit_button.clicked.connect(self.quit_clicked)
        self._lay_out()
        self.show_reason(reason)

    def _label(self, name: str, text: str) -> QLabel:
        label = make_plain(QLabel(text, self))
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def _lay_out(self) -> None:
        small = self.reason.font()
        small.setPointSizeF(small.pointSizeF() * 0.9)
        for label in (self.reason, self.hint):
            label.setFont(small)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.quit_button)
        buttons.addWidget(self.retry_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(24, 24, 24, 20)
        column.setSpacing(10)
        for widget in (self.headline, self.reason, self.busy, self.status):
            column.addWidget(widget)
        column.addSpacing(8)
        column.addWidget(self.hint)
        column.addStretch(1)
        column.addLayout(buttons)
        self.setMinimumWidth(580)

    def show_reason(self, reason: str) -> None:
        self.reason.setText(line(reason[:1].upper() + reason[1:]))
        self.reason.setVisible(bool(reason))

    def show_countdown(self, seconds: float) -> None:
        self.status.setText(f"Trying again in {math.ceil(seconds)} s")

    def show_trying(self) -> None:
        self.status.setText("Trying now…")

    def closeEvent(self, event: QCloseEvent) -> None:
        self.quit_clicked.emit()  # the window's close box is "Quit"
        event.accept()


def headline(where: str) -> str:
    return f"Cannot reach the database at {where} — retrying"


def hint_text(config: Path | None) -> str:
    where = f" in {config}" if config is not None else " in config.toml"
    return (
        "To use another database, change IKGUI_DATABASE_URL, or url under [storage]"
        f"{where}; without either, ikgui keeps its history in its own SQLite file. "
        "Settings → General shows the database in use once ikgui is open."
    )


async def open_when_reachable(
    open_window: Callable[[], T],
    error: StorageError,
    *,
    config: Path | None = None,
    first_delay: float = FIRST_DELAY,
    max_delay: float = MAX_DELAY,
) -> T | None:
    """Show the wait page for ``error`` and retry ``open_window`` until it works (its
    result is returned) or the user quits (``None``). Another error than an unreachable
    server is raised, as the first attempt's would have been."""
    where = unreachable_where(error) or "the server"
    page = DatabaseWaitPage(where, reason_of(error), config)
    wake = asyncio.Event()
    quitting: list[bool] = []
    page.retry_clicked.connect(wake.set)

    def quit_now() -> None:
        quitting.append(True)
        wake.set()

    page.quit_clicked.connect(quit_now)
    page.show()
    delay = first_delay
    try:
        while True:
            await _count_down(page, delay, wake)
            if quitting:
                return None
            page.show_trying()
            why = await asyncio.to_thread(port_answers, where)
            if quitting:
                return None
            if not why:
                try:
                    return open_window()
                except StorageError as exc:
                    if unreachable_where(exc) is None:
                        raise
                    why = reason_of(exc)
            page.show_reason(why)
            delay = min(delay * 2, max_delay)
    finally:
        page.blockSignals(True)
        page.close()
        page.deleteLater()


async def _count_down(page: DatabaseWaitPage, delay: float, wake: asyncio.Event) -> None:
    """Show the seconds left until the next try; "Retry now" (or "Quit") ends it early."""
    wake.clear()
    until = time.monotonic() + delay
    while (left := until - time.monotonic()) > 0:
        page.show_countdown(left)
        try:
            await asyncio.wait_for(wake.wait(), timeout=min(0.25, left))
        except TimeoutError:
            continue
        return

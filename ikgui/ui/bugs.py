"""The path for bugs: whatever goes wrong unexpectedly — an exception out of a slot, a
thread, a loop callback or a task the window spawned — is written to the log file under
the data folder and shown in one dialog that says so in plain words, with the traceback
under "Copy details" for a bug report. Qt's own messages go to the log by severity.

:func:`install` puts the hooks in place (the composition root, once); :func:`surface`
is the done callback of every task the window spawns. Before :func:`install` (tests,
the demo's own loop), a task's exception goes to asyncio's default handler, which logs
it at ERROR: never lost.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QMessageLogContext, QObject, QtMsgType, Signal
from PySide6.QtWidgets import QApplication

from ikgui.local.log import hold_records

if TYPE_CHECKING:
    from ikgui.local.log import LogFile
    from ikgui.ui.bug_dialog import BugDialog

log = logging.getLogger(__name__)
qt_log = logging.getLogger("ikgui.qt")

# -- Qt's messages -------------------------------------------------------------------------
_QT_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}
#: The offscreen platform's harmless chatter (it has no window manager).
_QUIET = ("This plugin does not support propagateSizeHints()",)


def qt_message(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Qt's message handler: each message to the log at its own severity."""
    if message in _QUIET:
        return
    qt_log.log(_QT_LEVELS.get(mode, logging.WARNING), "%s", message)


# -- tasks -------------------------------------------------------------------------------
def surface(task: asyncio.Future[Any]) -> None:
    """A spawned task's done callback: its exception (a bug: the task's own code turns
    what it expects into feedback) goes to the loop's handler. Cancelling is no error."""
    if task.cancelled():
        return
    exc = task.exception()  # (retrieved: asyncio no longer complains when it is collected)
    if exc is None:
        return
    name = task.get_name() if isinstance(task, asyncio.Task) else "a task"
    task.get_loop().call_exception_handler(
        {"message": f"{name} failed", "exception": exc, "future": task}
    )


# -- the hooks -----------------------------------------------------------------------------
class _Carrier(QObject):
    """Brings a report from any thread to the GUI thread (a queued signal)."""

    reported = Signal(str, str)


class BugPath:
    """Where unexpected errors go: the log, then the one dialog. Build it on the GUI
    thread; :meth:`report` may be called from any thread."""

    def __init__(self, log_file: LogFile | None, data_dir: Path | None = None) -> None:
        self.log_file = log_file
        #: Where the log goes, while it is not open yet (:meth:`open_log`).
        self._data_dir = data_dir
        self.dialog: BugDialog | None = None
        self._carrier = _Carrier()
        self._carrier.reported.connect(self._show)
        self._undo: list[Callable[[], None]] = []

    def open_log(self) -> None:
        """Open the log file now (start-up leaves it until the window is painted: it
        imports ``logging.handlers``; what is logged before waits for it)."""
        if self.log_file is None and self._data_dir is not None:
            from ikgui.local.log import open_log

            self.log_file = open_log(self._data_dir)
            self._data_dir = None

    def report(self, what: str, exc: BaseException | None, details: str = "") -> None:
        """Log ``what`` (and ``exc``'s traceback) and show it to the user."""
        try:
            self.open_log()  # (a bug before the first paint: its dialog names the file)
            if exc is not None:
                log.error("%s", what, exc_info=exc)
                details = "".join(traceback.format_exception(exc))
            else:
                log.error("%s%s", what, f"\n{details}" if details else "")
            self._carrier.reported.emit(what, f"{what}\n{details}".rstrip())
        except Exception:  # the bug path must never be the next bug
            sys.__excepthook__(*sys.exc_info())

    def _show(self, what: str, details: str) -> None:
        if QApplication.instance() is None:
            return
        if self.dialog is None:
            from ikgui.ui.bug_dialog import BugDialog

            self.dialog = BugDialog(self.log_file.path if self.log_file else None)
            self.dialog.finished.connect(self._closed)
        self.dialog.add(what, details)
        self.dialog.show()  # never exec(): the loop (a stream, a save) keeps running
        self.dialog.raise_()

    def _closed(self) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None

    # the hooks themselves
    def excepthook(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, exc, tb)
            return
        self.report(_what(exc), exc.with_traceback(tb))

    def thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return
        thread = args.thread.name if args.thread is not None else "a thread"
        self.report(f"{_what(args.exc_value)} (in {thread})", args.exc_value)

    def loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        message = str(context.get("message") or "an error in the event loop")
        if isinstance(exc, BaseException):
            self.report(f"{_what(exc)} ({message})", exc)
        else:
            # (A task destroyed while pending, a transport left open: the log's, not the
            # user's, to read.)
            rest = ", ".join(f"{k}={v!r}" for k, v in context.items() if k != "message")
            log.error("%s%s", message, f" ({rest})" if rest else "")

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        previous_hook, previous_thread_hook = sys.excepthook, threading.excepthook
        previous_handler = loop.get_exception_handler()
        sys.excepthook = self.excepthook
        threading.excepthook = self.thread_hook
        loop.set_exception_handler(self.loop_error)

        def undo() -> None:
            sys.excepthook = previous_hook
            threading.excepthook = previous_thread_hook
            loop.set_exception_handler(previous_handler)

        self._undo.append(undo)

    def uninstall(self) -> None:
        """Put back the hooks :meth:`install` replaced and close the log (tests)."""
        while self._undo:
            self._undo.pop()()
        if self.dialog is not None:
            self.dialog.close()
        if self.log_file is not None and self.log_file.opened:
            self.log_file.close()


def _what(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def install(loop: asyncio.AbstractEventLoop, data_dir: Path, *, log_now: bool = True) -> BugPath:
    """Send unexpected errors (``sys.excepthook``, ``threading.excepthook``, ``loop``'s
    exception handler) to the log under ``data_dir`` and to the bug dialog. Without
    ``log_now`` the log file opens at :meth:`BugPath.open_log` (or the first bug); what
    is logged meanwhile is held for it."""
    path = BugPath(None, data_dir)
    if log_now:
        path.open_log()
    else:
        hold_records()
    path.install(loop)
    return path

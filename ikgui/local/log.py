"""The log file: what went wrong unexpectedly (a bug's traceback), asyncio's complaints and
Qt's messages, kept under the data folder so that a bug report can quote them.

Qt-free: the command line writes its unexpected errors here too. Nothing is written
until something opens the log (the window at start, the command line when it fails).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

#: The most records held for a log not open yet (:func:`hold_records`).
HELD = 1000
#: A few hundred tracebacks per file; three old files kept beside it.
MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_path(data_dir: Path) -> Path:
    return data_dir / "logs" / "ikgui.log"


@dataclass(frozen=True)
class LogFile:
    """The open log: records of ``INFO`` and worse from every logger go to ``path``."""

    path: Path
    handler: logging.Handler
    #: Whether this call opened it (and so closing it is this caller's to do).
    opened: bool = True

    def close(self) -> None:
        logging.getLogger().removeHandler(self.handler)
        self.handler.close()


class _Held(logging.Handler):
    """Keeps the records logged before the log file opens (the window opens it once it
    is painted), for :func:`open_log` to write first."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.records) < HELD:
            self.records.append(record)


def hold_records() -> None:
    """Keep what is logged (ikgui's notes and everyone's warnings) until :func:`open_log`."""
    root = logging.getLogger()
    if not any(isinstance(handler, _Held) for handler in root.handlers):
        root.addHandler(_Held())
        _keep_notes()


def _keep_notes() -> None:
    # ikgui's own notes (INFO) are worth keeping next to an error; other libraries keep
    # the root's WARNING.
    ikgui = logging.getLogger("ikgui")
    if ikgui.level == logging.NOTSET or ikgui.level > logging.INFO:
        ikgui.setLevel(logging.INFO)


def open_log(data_dir: Path) -> LogFile | None:
    """The rotating log file under ``data_dir`` (``None`` when it cannot be written: a
    read-only or full disk must not turn one error into two), with what was held for
    it (:func:`hold_records`) written first."""
    from logging.handlers import RotatingFileHandler  # (~3 ms: not before the paint)

    path = log_path(data_dir)
    root = logging.getLogger()
    held = [early for early in root.handlers if isinstance(early, _Held)]
    for early in held:
        root.removeHandler(early)
    for known in root.handlers:
        if isinstance(known, RotatingFileHandler) and Path(known.baseFilename) == path:
            return LogFile(path, known, opened=False)  # opened already (a second window, a test)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
    except OSError:
        return None
    handler.setLevel(logging.INFO)
    handler.setFormatter(logging.Formatter(FORMAT))
    for early in held:
        for record in early.records:
            handler.handle(record)
    root.addHandler(handler)
    _keep_notes()
    return LogFile(path, handler)


def log_crash(data_dir: Path, what: str, exc: BaseException) -> Path | None:
    """Write ``exc``'s traceback to the log under ``data_dir``; where it went (``None``
    when the log cannot be written: then nothing is written anywhere, never a traceback
    on the screen)."""
    log = open_log(data_dir)
    if log is None:
        return None
    try:
        logging.getLogger("ikgui.crash").error("%s", what, exc_info=exc)
    finally:
        if log.opened:
            log.close()
    return log.path

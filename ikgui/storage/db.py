"""Opening an ikgui database file: validation before any write, pragmas, and error wording.

A file is inspected read-only first (``immutable`` when no ``-wal`` file exists, so no
side files appear), and refused, untouched, when it is not SQLite, is somebody else's
SQLite database, or was written by a newer ikgui. Only then is it opened for writing,
which switches it to write-ahead logging.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from pathlib import Path
from typing import Any, cast

from peewee import PeeweeException, SqliteDatabase, _savepoint

from ikgui.domain.errors import StorageError
from ikgui.storage.migrations import APPLICATION_ID, newer_schema_error

log = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
PRAGMAS: tuple[tuple[str, object], ...] = (
    ("journal_mode", "wal"),
    ("foreign_keys", 1),
    ("busy_timeout", BUSY_TIMEOUT_MS),
    ("synchronous", "normal"),
    ("cache_size", -16000),  # KiB: keeps a large history's indexes in memory
)

_LOCKED = f"another program kept it locked for more than {BUSY_TIMEOUT_MS // 1000} seconds"
#: An input/output error with less free space than this on the disk is taken for a full
#: disk (SQLite reports a -shm file it cannot size as ``SQLITE_IOERR_SHMSIZE``).
NEARLY_FULL = 16 * 1024 * 1024
_REASONS = {
    "SQLITE_FULL": "the disk is full",
    "SQLITE_BUSY": _LOCKED,
    "SQLITE_LOCKED": _LOCKED,
    "SQLITE_READONLY": "the file is read-only",
    "SQLITE_IOERR": "the disk reported an input/output error",
    "SQLITE_CORRUPT": "the file is damaged",
    "SQLITE_NOTADB": "the file is damaged",
    "SQLITE_CANTOPEN": "the file cannot be opened",
    "SQLITE_PERM": "permission was denied",
    "SQLITE_AUTH": "permission was denied",
    "SQLITE_NOMEM": "the computer ran out of memory",
}


def not_ours_error(path: Path, why: str) -> StorageError:
    return StorageError(f"{path} is not an ikgui database ({why}); it was left untouched.")


def _sqlite_cause(exc: BaseException) -> sqlite3.Error | None:
    """The sqlite3 error behind ``exc`` (peewee wraps it as its first argument)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, sqlite3.Error):
            return seen
        if seen.args and isinstance(seen.args[0], sqlite3.Error):
            return seen.args[0]
        seen = seen.__cause__ or seen.__context__
    return None


def disk_nearly_full(path: Path) -> bool:
    """Whether the disk holding ``path`` has (almost) no room left."""
    try:
        return shutil.disk_usage(path.parent).free < NEARLY_FULL
    except OSError:
        return False


def is_disk_full(exc: BaseException, path: Path) -> bool:
    """Whether ``exc`` failed for lack of space on the disk holding ``path``."""
    cause = _sqlite_cause(exc)
    if cause is None:
        return False
    name = getattr(cause, "sqlite_errorname", "") or ""
    if name == "SQLITE_FULL":
        return True
    return name.startswith("SQLITE_IOERR") and disk_nearly_full(path)


def reason(exc: BaseException, path: Path | None = None) -> str:
    """Plain words for a database failure (``path``: the database, to name its disk)."""
    cause = _sqlite_cause(exc)
    if cause is None:
        return str(exc) or type(exc).__name__
    if path is not None and is_disk_full(exc, path):
        return f"the disk is full: no room left in {path.parent}"
    name = getattr(cause, "sqlite_errorname", "") or ""
    base = "_".join(name.split("_")[:2])  # SQLITE_IOERR_WRITE -> SQLITE_IOERR
    if name in _REASONS:
        return _REASONS[name]
    if base in _REASONS:
        return _REASONS[base]
    if base == "SQLITE_CONSTRAINT":
        return f"a consistency check failed ({cause})"
    return str(cause)


def storage_error(path: Path, exc: BaseException, *, writing: bool) -> StorageError:
    why = reason(exc, path)
    if writing:
        return StorageError(f"Could not write to the database {path}: {why}.", why)
    return StorageError(f"Could not read the database {path}: {why}.", why)


#: What may go wrong inside sqlite3 or peewee.
DB_ERRORS = (sqlite3.Error, PeeweeException)


def inspect_file(path: Path, known_version: int) -> int:
    """The schema version of ``path`` (0 for a new or empty file), refusing what isn't ours.

    Nothing is written: a refused file stays byte-for-byte as it was.
    """
    if path.is_dir():
        raise StorageError(f"{path} is a folder, not an ikgui database; it was left untouched.")
    try:
        size = path.stat().st_size if path.exists() else 0
        if size == 0:
            return 0
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise StorageError(f"Could not open the database {path}: {exc.strerror or exc}.") from exc
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise not_ours_error(path, "not a valid SQLite file")
    wal = path.with_name(path.name + "-wal")
    # Without a -wal file the main file holds everything; ``immutable`` then reads it
    # without creating -wal/-shm files next to a file we may refuse.
    query = "?mode=ro" if wal.exists() else "?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + query, uri=True)
    except sqlite3.Error as exc:
        raise StorageError(f"Could not open the database {path}: {reason(exc, path)}.") from exc
    try:
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        objects = int(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorname", "") in {"SQLITE_NOTADB", "SQLITE_CORRUPT"}:
            if int.from_bytes(header[68:72], "big") == APPLICATION_ID:
                raise StorageError(
                    f"{path} is a damaged ikgui database and cannot be read; it was left untouched."
                ) from exc
            raise not_ours_error(path, "not a valid SQLite file") from exc
        raise StorageError(f"Could not open the database {path}: {reason(exc, path)}.") from exc
    finally:
        conn.close()
    if app_id == APPLICATION_ID:
        if version > known_version:
            raise newer_schema_error(path, version, known_version)
        return version
    if app_id == 0 and version == 0 and objects == 0:
        return 0  # an empty SQLite database: ours to initialise
    raise not_ours_error(path, "it is a SQLite database of another program")


class TextDecoder:
    """Decodes TEXT values; bytes that are not UTF-8 (a damaged page that
    ``integrity_check`` does not catch) become U+FFFD instead of failing the whole
    query, and the first such value is logged once per database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.damaged = False

    def __call__(self, raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            if not self.damaged:
                self.damaged = True
                log.warning(
                    "The database %s holds text that is not valid UTF-8; it is shown with "
                    "replacement characters (\ufffd).",
                    self.path,
                )
            return raw.decode("utf-8", "replace")


class Database(SqliteDatabase):
    """peewee's SQLite database whose connections decode damaged text with replacement."""

    def __init__(self, path: Path, uri: str | None = None, **kwargs: Any) -> None:
        if uri is None:
            super().__init__(str(path), **kwargs)
        else:
            super().__init__(uri, uri=True, **kwargs)
        self.decoder = TextDecoder(path)

    def _add_conn_hooks(self, conn: sqlite3.Connection) -> None:
        conn.text_factory = self.decoder
        super()._add_conn_hooks(conn)  # type: ignore[misc]

    def in_sqlite_transaction(self) -> bool:
        conn = cast(Any, self)._state.conn
        return conn is not None and bool(conn.in_transaction)

    def rollback(self) -> None:
        # SQLite itself rolls back the whole transaction on some errors (a full disk):
        # a second ROLLBACK would replace the real reason with "no transaction is active".
        if self.in_sqlite_transaction():
            super().rollback()

    def savepoint(self, sid: str | None = None) -> _Savepoint:
        return _Savepoint(self, sid)


class _Savepoint(_savepoint):
    """A savepoint that, like ``Database.rollback``, skips a rollback SQLite already did."""

    db: Database

    def rollback(self, begin: bool = True) -> None:
        if self.db.in_sqlite_transaction():
            super().rollback(begin)


def connect(path: Path) -> SqliteDatabase:
    """Open ``path`` with ikgui's pragmas (creates the file and its folder)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(
            f"Could not create the folder {path.parent}: {exc.strerror or exc}."
        ) from exc
    db = Database(path, pragmas=list(PRAGMAS), timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        db.connect()
    except DB_ERRORS as exc:
        raise StorageError(f"Could not open the database {path}: {reason(exc, path)}.") from exc
    return db


def raw_connection(db: SqliteDatabase) -> sqlite3.Connection:
    """The calling thread's sqlite3 connection of ``db`` (connecting if needed)."""
    return cast(sqlite3.Connection, db.connection())  # type: ignore[no-untyped-call]


def open_database(path: Path, known_version: int) -> tuple[SqliteDatabase, int]:
    """Validate, then open ``path``; returns the database and the version found."""
    version = inspect_file(path, known_version)
    return connect(path), version

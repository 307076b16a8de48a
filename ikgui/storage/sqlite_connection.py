"""The plumbing under ``SqliteStore``: its connection (one per thread), read blocks, and
write transactions (``BEGIN IMMEDIATE``, savepoints when nested) whose sqlite or peewee
failures surface as a ``StorageError`` in plain words."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from peewee import SqliteDatabase

from ikgui.domain.errors import StorageError
from ikgui.storage.db import DB_ERRORS, raw_connection, storage_error
from ikgui.storage.locks import FileSendLock


class SqliteConnection:
    """One SQLite file opened for a store."""

    def __init__(self, db: SqliteDatabase, path: Path, read_only: str | None = None) -> None:
        self.path = path
        #: Why the database is open read-only (a full disk), or None when it is writable.
        self.read_only = read_only
        self._db = db
        self._local = threading.local()
        self._closed = False

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._db.close()

    def __enter__(self) -> SqliteConnection:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _connection(self) -> sqlite3.Connection:
        if self._closed:
            raise StorageError(f"The database {self.path} is already closed.")
        try:
            return raw_connection(self._db)
        except DB_ERRORS as exc:
            raise storage_error(self.path, exc, writing=False) from exc

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        conn = self._connection()
        try:
            yield conn
        except DB_ERRORS as exc:
            raise storage_error(self.path, exc, writing=False) from exc

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """A transaction (a savepoint when nested) that commits on success."""
        if self.read_only is not None:
            raise StorageError(
                f"Could not write to the database {self.path}: {self.read_only}.", self.read_only
            )
        conn = self._connection()
        depth: int = getattr(self._local, "depth", 0)
        try:
            conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT sp{depth}")
        except DB_ERRORS as exc:
            raise storage_error(self.path, exc, writing=True) from exc
        self._local.depth = depth + 1
        try:
            yield conn
        except BaseException as exc:
            self._local.depth = depth
            self._undo(conn, depth)
            if isinstance(exc, DB_ERRORS):
                raise storage_error(self.path, exc, writing=True) from exc
            raise
        self._local.depth = depth
        try:
            conn.execute("COMMIT" if depth == 0 else f"RELEASE sp{depth}")
        except DB_ERRORS as exc:
            self._undo(conn, depth)
            raise storage_error(self.path, exc, writing=True) from exc

    @staticmethod
    def _undo(conn: sqlite3.Connection, depth: int) -> None:
        # SQLite itself rolls back the whole transaction on some errors (disk full).
        if not conn.in_transaction:
            return
        try:
            if depth == 0:
                conn.execute("ROLLBACK")
            else:
                conn.execute(f"ROLLBACK TO sp{depth}")
                conn.execute(f"RELEASE sp{depth}")
        except sqlite3.Error:
            pass

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A block whose writes commit together (nests as savepoints)."""
        with self._writing():
            yield

    def data_version(self) -> int:
        """A number that changes when another connection commits (cheap change polling)."""
        with self._reading() as conn:
            return int(conn.execute("PRAGMA data_version").fetchone()[0])

    def send_lock(self, conv_id: str) -> FileSendLock:
        """A lock file in the ``locks`` folder next to the database (see ``locks``)."""
        return FileSendLock(self.path.parent / "locks", conv_id)

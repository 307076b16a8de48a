"""The plumbing under the store: its peewee database (one connection per thread), read
blocks, and write transactions (``atomic()``: the dialect's outermost transaction,
savepoints when nested) whose driver or peewee failures surface as a ``StorageError``
in plain words (the dialect's)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from peewee import Database, PeeweeException

from ikgui.domain.errors import StorageError
from ikgui.domain.ports import SendLock
from ikgui.storage import listing_version
from ikgui.storage.dialect import Dialect
from ikgui.storage.worker import DatabaseThread

#: A window's call pings the server through the database thread first when nothing has
#: been heard from it for this long (seconds): one that stopped answering is found out
#: there, not on the window's thread. (A ping is a round trip, ~0.2 ms on this machine;
#: the window's calls come in bursts: a poll, a send.)
HEARD_SECONDS = 0.25


class StoreConnection:
    """One database opened for a store (SQLite file or PostgreSQL server)."""

    def __init__(
        self,
        db: Database,
        dialect: Dialect,
        read_only: str | None = None,
    ) -> None:
        #: The SQLite file (``None`` on PostgreSQL).
        self.path: Path | None = dialect.path
        #: Why the database is open read-only (a full disk), or None when it is writable.
        self.read_only = read_only
        self.dialect = dialect
        self._db = db
        self._errors: tuple[type[BaseException], ...] = (PeeweeException, *dialect.errors)
        self._closed = False
        #: Where a growing reply's saves go (PostgreSQL: :meth:`save_behind`).
        self._worker: DatabaseThread | None = None
        #: Why the last of them failed, until the next is asked for.
        self._behind_failed: BaseException | None = None
        #: A window's: how long its thread waits for the server at most (None: as long
        #: as it takes, as the command line does).
        self._patience: float | None = None
        #: When a call on the caller's thread last had its answer.
        self._heard = time.monotonic()

    def save_behind(self) -> None:
        """Send a growing reply's saves to a database thread of their own (with its own
        connection): a server that stops answering holds up that thread, not the
        caller's. Every other call waits for them first, so they stay in order."""
        if self._worker is None:
            self._worker = DatabaseThread()

    def answer_within(self, seconds: float) -> None:
        """A window's store: a call on its thread waits at most ``seconds`` (or a few of
        the server's usual answers, if that is longer) for the database thread and the
        server; a server that does not answer by then makes it raise
        ``DatabaseUnreachable`` at once, which the window takes as "away" (it keeps what
        it shows and its writes wait)."""
        self.save_behind()
        self._patience = seconds

    def _wait_for_answer(self, worker: DatabaseThread) -> None:
        """(A window's call, before it touches its own connection.)"""
        assert self._patience is not None
        bound = max(self._patience, 3 * worker.typical)
        if worker.busy_for() > bound:
            raise self.dialect.silent_error()  # a request is stuck: do not queue behind it
        if time.monotonic() - max(self._heard, worker.answered_at) > HEARD_SECONDS:
            worker.submit(self._ping, key="ping")
        if not worker.wait_idle(bound):
            raise self.dialect.silent_error()

    def _ping(self) -> None:
        """(On the database thread.)"""
        self._db.execute_sql("SELECT 1")  # type: ignore[no-untyped-call]

    @property
    def database(self) -> Database:
        """The peewee database (for ``ikgui.storage.copy``)."""
        return self._db

    @property
    def kind(self) -> str:
        return self.dialect.kind

    def describe(self) -> str:
        return self.dialect.describe()

    @property
    def listener(self) -> Any:
        """PostgreSQL: the ``ChangeListener`` behind ``data_version`` (made by its first
        call; ``None`` before, and on SQLite)."""
        return getattr(self.dialect, "listener", None)

    def settle(self) -> None:
        """Wait until the saves sent behind have been made (another connection reads
        them then)."""
        if self._worker is not None:
            self._worker.settle()

    def unanswered_for(self) -> float:
        """How long the database thread has been waiting for the server (seconds; 0 when
        it waits for nothing, and always on SQLite)."""
        worker = self._worker
        return 0.0 if worker is None else worker.busy_for()

    def close(self) -> None:
        if not self._closed:
            worker, self._worker = self._worker, None
            if worker is not None:
                # Its saves, then its own connection; a window does not wait longer than
                # its patience for a server that does not answer (the thread is a daemon).
                worker.close(self._db.close, wait=self._patience)
            self._closed = True
            self.dialect.close()
            self._db.close()

    def __enter__(self) -> StoreConnection:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _connection(self, settled: bool = True) -> Any:
        """The calling thread's driver connection (connecting if needed), once the saves
        sent behind have been made (unless not ``settled``)."""
        if self._closed:
            raise self.dialect.closed_error()
        worker = self._worker
        if settled and worker is not None:
            if self._patience is not None and not worker.current:
                self._wait_for_answer(worker)
            else:
                worker.settle()
        try:
            return self._db.connection()  # type: ignore[no-untyped-call]
        except self._errors as exc:
            raise self.dialect.error(exc, writing=False) from exc

    @contextmanager
    def _reading(self, settled: bool = True) -> Iterator[Database]:
        self._connection(settled)
        try:
            yield self._db
        except self._errors as exc:
            raise self.dialect.error(exc, writing=False) from exc
        self._heard = time.monotonic()

    def _read_only_error(self, read_only: str) -> StorageError:
        where = self.path if self.path is not None else self.describe()
        return StorageError(f"Could not write to the database {where}: {read_only}.", read_only)

    @contextmanager
    def _writing(self) -> Iterator[Database]:
        """A transaction (a savepoint when nested) that commits on success."""
        if self.read_only is not None:
            raise self._read_only_error(self.read_only)
        self._connection()
        try:
            with self.dialect.atomic(self._db):
                yield self._db
        except self._errors as exc:
            raise self.dialect.error(exc, writing=True) from exc
        self._heard = time.monotonic()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A block whose writes commit together (nests as savepoints)."""
        with self._writing():
            yield

    def schema_version(self) -> int:
        with self._reading() as db:
            return self.dialect.schema_version(db)

    def data_version(self) -> int:
        """A number that changes when another connection commits (cheap change polling).
        Asked every second: it does not wait for the saves behind (on PostgreSQL it is a
        counter the change listener keeps)."""
        with self._reading(settled=False) as db:
            return self.dialect.data_version(db)

    def listing_version(self) -> int:
        """A number that changes when another connection may have changed a listing."""
        with self._reading() as db:
            return listing_version.read(self.dialect, db)

    def send_lock(self, conv_id: str) -> SendLock:
        if self.read_only is not None:
            # No send can write its message: say why, not that a lock file cannot be
            # made in a folder that is read-only too.
            return _RefusedLock(self._read_only_error(self.read_only))
        lock = self.dialect.send_lock(conv_id)
        if self._patience is not None:
            return _AnsweredLock(lock, self)
        return lock


class _AnsweredLock:
    """A window's send lock: taken (a connection of its own, a query) only once the
    server is known to answer (:meth:`StoreConnection.answer_within`)."""

    def __init__(self, lock: SendLock, store: StoreConnection) -> None:
        self._lock = lock
        self._store = store

    def acquire(self) -> bool:
        self._store._connection()  # raises DatabaseUnreachable if the server is silent
        return self._lock.acquire()

    def release(self) -> None:
        self._lock.release()


class _RefusedLock:
    """The send lock of a read-only store: taking it fails with the store's reason."""

    def __init__(self, error: StorageError) -> None:
        self.error = error

    def acquire(self) -> bool:
        raise self.error

    def release(self) -> None:
        pass

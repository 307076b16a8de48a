"""Live changes from a PostgreSQL database: ``LISTEN ikgui_changes`` on a connection of its own.

The store's triggers ``NOTIFY ikgui_changes`` after every statement that writes a
conversation, event or tag. :class:`ChangeListener` waits for those notifications on a
daemon thread (``Connection.notifies`` blocks in libpq's socket wait, it never queries
the tables) and bumps :attr:`ChangeListener.version` for each one that another process or
machine sent: the store's ``data_version()``. Its own writes (the store registers its
connections' backend pids) do not count. :attr:`ChangeListener.listing_version` counts
only those that may change a listing: not ``event`` (a reply growing elsewhere writes
events only) nor ``conversation_unlisted`` (a draft, the usage); the store's
``listing_version()``.

When the connection is lost (the server restarted, the network went away) it reconnects
with back-off, and bumps the version once connected again: what was written meanwhile
was not announced. Only the PostgreSQL store imports this module (psycopg stays optional).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

log = logging.getLogger(__name__)

CHANNEL = "ikgui_changes"
#: Payloads of writes that change no listing (anything else may).
UNLISTED = frozenset({"event", "conversation_unlisted"})
#: Seconds between reconnection attempts: doubling from the first to the last.
FIRST_DELAY = 0.2
MAX_DELAY = 5.0
#: How long one wait for notifications lasts before the thread looks at ``close()``.
WAIT = 0.2
#: A dead peer (cable pulled, laptop asleep) is noticed by TCP keepalives within ~10 s.
_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}


class ChangeListener:
    """Counts the changes other connections announce on ``channel``."""

    def __init__(
        self,
        conninfo: str,
        password: str | None = None,
        channel: str = CHANNEL,
        *,
        connect_timeout: float = 5.0,
    ) -> None:
        self._conninfo = conninfo
        self._password = password
        self.channel = channel
        self._connect_timeout = max(1, round(connect_timeout))
        #: Bumped on every change another backend announced, and on every (re)connect.
        self.version = 0
        #: Bumped as ``version``, except for changes no listing shows (``UNLISTED``).
        self.listing_version = 0
        #: Whether the LISTEN connection is up now.
        self.connected = False
        #: Called on the listener's thread after each bump (the window queues a signal).
        self.on_change: Callable[[], None] | None = None
        #: Why the last connection attempt failed (plain text, for logs and status).
        self.error = ""
        self._own_pids: set[int] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None

    # -- the store's side -------------------------------------------------------------
    def add_own_pid(self, pid: int) -> None:
        """A backend of our own store: its notifications are our own writes."""
        with self._lock:
            self._own_pids.add(pid)

    def discard_own_pid(self, pid: int) -> None:
        with self._lock:
            self._own_pids.discard(pid)

    def is_own(self, pid: int) -> bool:
        with self._lock:
            return pid in self._own_pids

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="ikgui-listen", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 1.0) -> None:
        """Stop listening: the thread ends within one wait (``WAIT``)."""
        self._stop.set()
        self.on_change = None
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def __enter__(self) -> ChangeListener:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the thread -----------------------------------------------------------------------
    def _run(self) -> None:
        delay = FIRST_DELAY
        while not self._stop.is_set():
            try:
                self._connect()
            except Exception as exc:  # never out of the thread: retry later
                self._note_failure(exc)
                self._stop.wait(delay)
                delay = min(delay * 2, MAX_DELAY)
                continue
            delay = FIRST_DELAY
            self._bump()  # what was written while we were not listening went unannounced
            try:
                self._listen()
            except Exception as exc:  # a lost connection: reconnect
                if not self._stop.is_set():
                    self._note_failure(exc)
            finally:
                self._disconnect()

    def _connect(self) -> None:
        params: dict[str, str | int] = dict(
            _KEEPALIVES, connect_timeout=self._connect_timeout, application_name="ikgui-listen"
        )
        if self._password is not None:
            params["password"] = self._password
        conn = psycopg.connect(make_conninfo(self._conninfo, **params), autocommit=True)
        try:
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self.connected = True
        if self.error:
            log.info("listening for changes again (%s)", self.channel)
        self.error = ""

    def _listen(self) -> None:
        conn = self._conn
        assert conn is not None
        while not self._stop.is_set():
            for note in conn.notifies(timeout=WAIT):
                if self._stop.is_set():
                    return
                if not self.is_own(note.pid):
                    self._bump(listing=note.payload not in UNLISTED)

    def _bump(self, *, listing: bool = True) -> None:
        with self._lock:
            self.version += 1
            if listing:
                self.listing_version += 1
        callback = self.on_change
        if callback is None:
            return
        try:
            callback()
        except Exception:  # the window's problem, not a reason to stop
            log.exception("the change callback failed")

    def _note_failure(self, exc: Exception) -> None:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        if reason != self.error:
            log.warning("not listening for changes: %s", reason)
        self.error = reason
        self.connected = False

    def _disconnect(self) -> None:
        conn, self._conn = self._conn, None
        self.connected = False
        if conn is not None:
            try:
                conn.close()
            except Exception:  # closing a broken connection
                log.debug("closing the listen connection failed", exc_info=True)

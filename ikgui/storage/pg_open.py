"""Connecting to PostgreSQL: the URL in words, the peewee database, and failures in plain
words (``DatabaseUnreachable`` when the server cannot be reached).

Only the PostgreSQL store imports this module, and with it psycopg (an optional extra).
The URL is handed to libpq as it is (``sslmode`` and its other parameters hold); the
password, when given, is passed beside it and never shown. A connection found dead
before a statement (the server restarted since) is replaced by a fresh one, so the first
call after the server is back just works.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import select
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import psycopg
from peewee import PostgresqlDatabase

from ikgui.domain.errors import DatabaseUnreachable, StorageError

#: Seconds libpq waits for a server before giving up (unless the URL says otherwise).
CONNECT_TIMEOUT = 5

#: TCP keepalives (unless the URL sets them): a server that vanished (cable pulled,
#: laptop asleep) is noticed within ~10 s instead of a statement waiting for ever.
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}

#: The planner's cost of a random page read on ikgui's connections (SSD-like).
RANDOM_PAGE_COST = 1.1

#: What libpq and the server say when the server cannot be reached, in plain words.
_AWAY = (
    ("connection refused", "connection refused"),
    ("could not translate host name", "unknown host name"),
    ("name or service not known", "unknown host name"),
    ("timeout expired", "timed out"),
    ("timed out", "timed out"),
    ("no route to host", "no route to the host"),
    ("network is unreachable", "the network is unreachable"),
    ("the database system is starting up", "the server is starting up"),
    ("the database system is shutting down", "the server is shutting down"),
    ("the database system is in recovery mode", "the server is recovering"),
    ("terminating connection", "the server closed the connection"),
    ("server closed the connection", "the server closed the connection"),
    ("consuming input failed", "the connection was lost"),
    ("connection is lost", "the connection was lost"),
    ("the connection is closed", "the connection was lost"),
    ("connection is closed", "the connection was lost"),
    ("ssl syscall", "the connection was lost"),
    ("no such file or directory", "no server is listening"),
    ("could not connect", "no server is listening"),
)
#: SQLSTATEs of a lost connection: class 08, and the server shutting down (57P0x).
_AWAY_STATES = ("08", "57P01", "57P02", "57P03")


@dataclass(frozen=True)
class Target:
    """Where a URL points, for messages (never the password)."""

    conninfo: str
    user: str
    host: str
    port: str
    dbname: str

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    def describe(self) -> str:
        return f"PostgreSQL {self.user}@{self.where}/{self.dbname}"


def parse(url: str) -> Target:
    """``url`` as libpq reads it, with libpq's defaults for what it leaves out."""
    try:
        params = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise StorageError(f"The database URL is not valid: {_first_line(exc)}.") from None
    if "password" in params:
        raise StorageError(
            "The database URL holds a password; keep it out of the URL "
            "(use `ikgui keys set database`, or ~/.pgpass)."
        )
    user = str(params.get("user") or os.environ.get("PGUSER") or getpass.getuser())
    host = str(params.get("host") or os.environ.get("PGHOST") or "localhost")
    port = str(params.get("port") or os.environ.get("PGPORT") or "5432")
    dbname = str(params.get("dbname") or os.environ.get("PGDATABASE") or user)
    if "connect_timeout" not in params and "PGCONNECT_TIMEOUT" not in os.environ:
        params["connect_timeout"] = CONNECT_TIMEOUT
    for name, value in KEEPALIVES.items():  # a dead peer is noticed, not waited for
        params.setdefault(name, value)
    conninfo = psycopg.conninfo.make_conninfo("", **params)
    return Target(conninfo, user, host, port, dbname)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else text
    for prefix in ("connection failed:", "FATAL:", "ERROR:"):
        last = last.removeprefix(prefix).strip()
    return last.rstrip(".")


def driver_error(exc: BaseException) -> psycopg.Error | None:
    """The psycopg error behind ``exc`` (peewee wraps it as its first argument)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, psycopg.Error):
            return seen
        if seen.args and isinstance(seen.args[0], psycopg.Error):
            return seen.args[0]
        seen = seen.__cause__ or seen.__context__
    return None


def is_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the server cannot be reached (at connect or later)."""
    cause = driver_error(exc)
    if cause is None:
        return False
    state = getattr(cause, "sqlstate", None) or ""
    if state.startswith(_AWAY_STATES):
        return True
    text = str(cause).lower()
    return isinstance(cause, (psycopg.OperationalError, psycopg.InterfaceError)) and any(
        pattern in text for pattern, _ in _AWAY
    )


def plain_error(target: Target, exc: BaseException, *, writing: bool) -> StorageError:
    """``exc`` in plain words: ``DatabaseUnreachable`` when the server is away."""
    cause = driver_error(exc) or exc
    text = str(cause).lower()
    state = getattr(cause, "sqlstate", None) or ""
    if "no password supplied" in text:
        return StorageError(
            f"The database at {target.where} wants a password for user {target.user}, and "
            "none was given. Store it with `ikgui keys set database`, name an environment "
            "variable that holds it in config.toml ([storage] password_env), or put it in "
            "~/.pgpass."
        )
    if "password authentication failed" in text:
        return StorageError(
            f"The database at {target.where} refused the password for user {target.user}."
        )
    if is_lost(exc):
        reason = next((words for pattern, words in _AWAY if pattern in text), None)
        return DatabaseUnreachable(target.where, reason)
    if state == "3D000" or (f'database "{target.dbname.lower()}" does not exist' in text):
        return StorageError(f"The server at {target.where} has no database named {target.dbname}.")
    if state == "28000" or f'role "{target.user.lower()}" does not exist' in text:
        return StorageError(f"The server at {target.where} has no user {target.user}.")
    if state == "23505" and _constraint(cause).endswith("_pkey"):
        # A copy killed half-way left the id counters behind the rows it copied.
        why = (
            "an `ikgui db copy` into it was stopped before it finished, so new rows cannot "
            "be added yet; run that `ikgui db copy` again to finish it"
        )
        return StorageError(f"Could not write to the database {target.describe()}: {why}.", why)
    why = _first_line(cause)
    verb = "write to" if writing else "read"
    return StorageError(f"Could not {verb} the database {target.describe()}: {why}.", why)


def _constraint(cause: BaseException) -> str:
    """The name of the constraint a driver error broke ("" when unknown)."""
    diag = getattr(cause, "diag", None)
    return str(getattr(diag, "constraint_name", None) or "")


def _has_input(conn: Any) -> bool:
    """Whether an idle connection has something to read: the server said goodbye."""
    try:
        readable, _, _ = select.select([conn.fileno()], [], [], 0)
    except (OSError, ValueError, psycopg.Error):
        return True
    return bool(readable)


#: A password given beside the URL, or a function asked for it only when the server
#: wants one (the keyring costs a new process ~100 ms to load; most servers never ask).
PasswordSource = str | Callable[[], str | None] | None


def _asks_for_password(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "no password supplied" in text or "password authentication failed" in text


class Secret:
    """The password of one store's connections: asked for at most once, never shown."""

    def __init__(self, source: PasswordSource) -> None:
        self.value: str | None = source if isinstance(source, str) else None
        self._ask = source if callable(source) else None

    def connect(self, conninfo: str, **kwargs: Any) -> Any:
        """``psycopg.connect``: without a password first (libpq may read ~/.pgpass), then
        with the one asked for when the server refuses."""
        if self.value is not None:
            return psycopg.connect(conninfo, password=self.value, **kwargs)
        try:
            return psycopg.connect(conninfo, **kwargs)
        except psycopg.OperationalError as exc:
            ask, self._ask = self._ask, None
            if ask is None or not _asks_for_password(exc):
                raise
            value = ask()
            if not value:
                raise
            self.value = value
        return psycopg.connect(conninfo, password=self.value, **kwargs)


class PgDatabase(PostgresqlDatabase):
    """peewee's PostgreSQL database on psycopg 3, opening connections from a ``Target``."""

    def __init__(self, target: Target, secret: Secret, on_connect: Any = None) -> None:
        super().__init__(target.dbname, prefer_psycopg3=True)
        self.target = target
        self.secret = secret
        self.on_connect = on_connect

    def _connect(self) -> Any:
        conn = self.secret.connect(self.target.conninfo, autocommit=True)
        # ikgui's reads are index lookups in a large table; the server's default cost of
        # a random page (4, for spinning disks) has the planner walk the primary key
        # or scan the table for a long conversation instead (tail_events: 25 ms, not
        # 0.3 ms). Only lowered, for this session, never raised above a tuned value.
        conn.execute(
            "SELECT set_config('random_page_cost', %s, false) "
            "WHERE current_setting('random_page_cost')::float > %s",
            (str(RANDOM_PAGE_COST), RANDOM_PAGE_COST),
        )
        if self.on_connect is not None:
            self.on_connect(conn)
        return conn

    @property
    def _st(self) -> Any:
        return cast(Any, self)._state

    def connection(self) -> Any:
        conn = super().connection()  # type: ignore[no-untyped-call]
        if not self._st.transactions and (conn.closed or conn.broken or _has_input(conn)):
            try:
                conn.execute("SELECT 1")
            except psycopg.Error:
                self.drop_connection()
                conn = super().connection()  # type: ignore[no-untyped-call]
        return conn

    def drop_connection(self) -> None:
        """Forget this thread's connection (lost): the next statement opens a new one."""
        if self._st.transactions:
            return  # the outermost block drops it once every block has unwound
        conn = self._st.conn
        self._st.reset()
        if conn is not None:
            with contextlib.suppress(psycopg.Error):
                conn.close()

    def rollback(self) -> None:
        try:
            super().rollback()
        except Exception:
            conn = self._st.conn
            if conn is None or conn.closed or conn.broken:
                return  # nothing to roll back on a dead connection: keep the real error
            raise

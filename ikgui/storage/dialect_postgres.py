"""PostgreSQL's side of :class:`ikgui.storage.dialect.Dialect`: ``tsvector`` search,
advisory send locks, the change counter and reconnecting after a lost connection.

Search: the generated ``event.search`` column (see :mod:`ikgui.storage.pg_migrations`)
and a GIN expression index on titles, queried with ``websearch_to_tsquery('simple', …)``
over the user's plain words (``search.words_of``: never query syntax), newest matches
first as on SQLite; snippets come from ``ts_headline`` without highlight markers. The
full-text index follows the rows by itself, so the index-maintenance hooks do nothing.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import psycopg
from peewee import SQL, ColumnBase, Database

from ikgui.domain.errors import DatabaseUnreachable, StorageError
from ikgui.storage import files
from ikgui.storage.pg_migrations import MIGRATION_LOCK, SEARCH_CONFIG
from ikgui.storage.pg_open import (
    PasswordSource,
    PgDatabase,
    Secret,
    Target,
    is_lost,
    plain_error,
)
from ikgui.storage.queries import execute_sql
from ikgui.storage.search import SNIPPET_WIDTH, snippet

#: ``pg_try_advisory_lock(SEND_LOCK, <crc32 of the conversation id>)``.
SEND_LOCK = MIGRATION_LOCK + 1
_HEADLINE = 'StartSel="", StopSel="", MaxWords=14, MinWords=6, MaxFragments=1'
#: Characters of a message ``ts_headline`` reads for a snippet.
HEADLINE_CHARS = 100_000


def _query_text(words: Sequence[str]) -> str:
    # Plain words (``\w`` runs) separated by spaces: websearch_to_tsquery ANDs them.
    return " ".join(words)


class PgSendLock:
    """One conversation's send lock: an advisory lock held by a connection of its own
    (the server releases it when that connection closes or its process dies)."""

    def __init__(self, dialect: PostgresDialect, conv_id: str) -> None:
        self._dialect = dialect
        self._key = zlib.crc32(conv_id.encode()) - 2**31  # a signed 32-bit int
        self._conn: Any = None

    @property
    def held(self) -> bool:
        return self._conn is not None

    def acquire(self) -> bool:
        if self._conn is not None:
            return True
        conn = self._dialect.connect_raw()
        try:
            row = conn.execute(
                "SELECT pg_try_advisory_lock(%s, %s)", (SEND_LOCK, self._key)
            ).fetchone()
        except psycopg.Error as exc:
            conn.close()
            raise self._dialect.error(exc, writing=True) from exc
        if not (row and row[0]):
            conn.close()
            return False
        self._conn = conn
        return True

    def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error):
                conn.close()  # ends the session: the lock goes with it

    def __enter__(self) -> PgSendLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class PostgresDialect:
    kind = "postgresql"
    path: Path | None = None
    errors: tuple[type[BaseException], ...] = (psycopg.Error,)

    def __init__(self, target: Target, secret: Secret) -> None:
        self.target = target
        self._secret = secret
        self._pids: set[int] = set()
        self.listener: Any = None
        self._db: PgDatabase | None = None

    def attach(self, db: PgDatabase) -> None:
        self._db = db

    def describe(self) -> str:
        return self.target.describe()

    def own_connection(self, conn: Any) -> None:
        """Called for each new store connection: its backend's notifications are ours."""
        pid = int(conn.info.backend_pid)
        self._pids.add(pid)
        if self.listener is not None:
            self.listener.add_own_pid(pid)

    def connect_raw(self) -> Any:
        """A connection of its own (send locks), autocommit; failures in plain words."""
        try:
            return self._secret.connect(self.target.conninfo, autocommit=True)
        except psycopg.Error as exc:
            raise self.error(exc, writing=False) from exc

    def atomic(self, db: Database) -> AbstractContextManager[Any]:
        return db.atomic()

    def error(self, exc: BaseException, *, writing: bool) -> StorageError:
        if self._db is not None and is_lost(exc):
            self._db.drop_connection()
        return plain_error(self.target, exc, writing=writing)

    def closed_error(self) -> StorageError:
        return StorageError(f"The database {self.describe()} is already closed.")

    def silent_error(self) -> StorageError:
        return DatabaseUnreachable(self.target.where, "it does not answer")

    def schema_version(self, db: Database) -> int:
        cursor = execute_sql(db, "SELECT value FROM ikgui_meta WHERE key = 'schema_version'")
        return int(cursor.fetchone()[0])

    def data_version(self, db: Database) -> int:
        listener = self._listener()
        if listener is not None:
            return int(listener.version)
        # No listener could be made (its module failed to import): a coarse signature
        # that also moves with our own writes and misses tag-only changes.
        cursor = execute_sql(
            db,
            "SELECT (SELECT coalesce(max(id), 0) FROM event), "
            "(SELECT coalesce(max(updated_at), 0) FROM conversation)",
        )
        last_event, last_update = cursor.fetchone()
        return hash((int(last_event), float(last_update))) & (2**62 - 1)

    def _listener(self) -> Any:
        if self.listener is None:
            try:
                from ikgui.storage.pg_listen import ChangeListener
            except ImportError:
                return None
            listener = ChangeListener(self.target.conninfo, self._secret.value)
            for pid in self._pids:
                listener.add_own_pid(pid)
            listener.start()
            self.listener = listener
        return self.listener

    def send_lock(self, conv_id: str) -> PgSendLock:
        return PgSendLock(self, conv_id)

    def close(self) -> None:
        listener, self.listener = self.listener, None
        if listener is not None:
            listener.close()

    # -- the full-text index follows the rows (a generated column and an index) ---------

    def index_event(
        self, db: Database, event_id: int, kind: str, content: str, streaming: bool
    ) -> None:
        pass

    def unindex_event(
        self, db: Database, event_id: int, kind: str, content: str, streaming: bool
    ) -> None:
        pass

    def unindex_conversations(self, db: Database, conv_ids: Sequence[str]) -> None:
        pass

    def set_title(self, db: Database, conv_id: str, title: str | None, *, new: bool) -> None:
        pass

    def index_files(self, db: Database, link_ids: Sequence[int]) -> None:
        files.index_links(db, self.kind, link_ids)

    def maybe_streaming(self) -> ColumnBase:
        # Written out: the partial index ``event_streaming`` names this very expression.
        return SQL("strpos(data, '\"streaming\"') > 0")

    # -- queries ------------------------------------------------------------------------

    def event_matches(self, db: Database, words: Sequence[str], limit: int) -> list[Any]:
        cursor = execute_sql(
            db,
            "SELECT e.conversation_id, e.id FROM event e "
            "JOIN conversation c ON c.id = e.conversation_id "
            f"WHERE e.search @@ websearch_to_tsquery('{SEARCH_CONFIG}', ikgui_fold(%s)) "
            "AND c.trashed_at IS NULL ORDER BY e.id DESC LIMIT %s",
            (_query_text(words), limit),
        )
        return list(cursor.fetchall())

    def title_matches(self, db: Database, words: Sequence[str]) -> list[Any]:
        cursor = execute_sql(
            db,
            "SELECT id, updated_at FROM conversation "
            f"WHERE to_tsvector('{SEARCH_CONFIG}', ikgui_fold(coalesce(title, ''))) "
            f"@@ websearch_to_tsquery('{SEARCH_CONFIG}', ikgui_fold(%s)) AND trashed_at IS NULL",
            (_query_text(words),),
        )
        return list(cursor.fetchall())

    def match_texts(
        self, db: Database, words: Sequence[str], event_ids: Sequence[int]
    ) -> dict[int, str]:
        if not event_ids:
            return {}
        cursor = execute_sql(
            db,
            # A short text is its own snippet (as on SQLite); a long one, the fragment
            # ts_headline finds, with its text's start and end to tell what was cut.
            f"SELECT id, CASE WHEN length(content) <= {SNIPPET_WIDTH} THEN content ELSE "
            f"ts_headline('{SEARCH_CONFIG}', left(content, {HEADLINE_CHARS}), "
            f"websearch_to_tsquery('{SEARCH_CONFIG}', ikgui_fold(%s)), %s) END, "
            f"length(content) <= {SNIPPET_WIDTH}, left(content, 400), right(content, 400) "
            "FROM event WHERE id = ANY(%s)",
            (_query_text(words), _HEADLINE, list(event_ids)),
        )
        return {
            int(i): text if short else _framed(text, head, tail, words)
            for i, text, short, head, tail in cursor.fetchall()
        }

    def file_matches(self, db: Database, words: Sequence[str], limit: int) -> list[Any]:
        cursor = execute_sql(
            db,
            "SELECT e.conversation_id, ef.event_id, ef.id FROM event_file ef "
            "JOIN event e ON e.id = ef.event_id JOIN conversation c ON c.id = e.conversation_id "
            f"WHERE ef.search @@ websearch_to_tsquery('{SEARCH_CONFIG}', ikgui_fold(%s)) "
            "AND c.trashed_at IS NULL ORDER BY ef.event_id DESC LIMIT %s",
            (_query_text(words), limit),
        )
        return list(cursor.fetchall())

    def file_texts(self, db: Database, link_ids: Sequence[int]) -> dict[int, str]:
        if not link_ids:
            return {}
        cursor = execute_sql(
            db,
            "SELECT ef.id, ef.name || ' ' || left(coalesce(f.text, ''), 100000) "
            "FROM event_file ef JOIN stored_file f ON f.sha256 = ef.sha256 "
            "WHERE ef.id = ANY(%s)",
            (list(link_ids),),
        )
        return {int(i): text for i, text in cursor.fetchall()}


def _flat(text: str) -> str:
    return " ".join(text.split())


def _framed(fragment: str, head: str, tail: str, words: Sequence[str]) -> str:
    """``fragment`` of a longer text as a snippet: at most ``SNIPPET_WIDTH`` characters,
    with "…" where the text goes on (as ``search.snippet`` marks it on SQLite)."""
    flat = _flat(fragment)
    inner = snippet(flat, list(words), SNIPPET_WIDTH - 2)
    lead = "" if _flat(head).startswith(flat[:40]) or inner.startswith("…") else "…"
    trail = "" if _flat(tail).endswith(flat[-40:]) or inner.endswith("…") else "…"
    return lead + inner + trail


def open_database(target: Target, password: PasswordSource) -> tuple[PgDatabase, PostgresDialect]:
    """The peewee database for ``target`` and its dialect (nothing connected yet)."""
    secret = Secret(password)
    dialect = PostgresDialect(target, secret)
    db = PgDatabase(target, secret, on_connect=dialect.own_connection)
    dialect.attach(db)
    return db, dialect

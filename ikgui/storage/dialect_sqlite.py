"""SQLite's side of :class:`ikgui.storage.dialect.Dialect`: FTS5 index maintenance and
queries, ``BEGIN IMMEDIATE`` transactions, lock files and ``PRAGMA data_version``.

Opening, validation and error wording are :mod:`ikgui.storage.db` and
:mod:`ikgui.storage.readonly`; migrations :mod:`ikgui.storage.migrations`.

Messages live in ``event_fts``, an external-content index over the ``event_text`` view
(the searchable kinds of ``event``, so the text is stored once); titles in ``title_fts``.
A query is the user's words, each quoted and ANDed, so ``"``, ``*``, ``NEAR``, ``-`` or
``:`` are only ever words.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from peewee import SQL, ColumnBase, Database

from ikgui.domain.errors import StorageError
from ikgui.storage import files
from ikgui.storage.db import storage_error
from ikgui.storage.locks import FileSendLock
from ikgui.storage.migrations import FTS_CHARS, INDEXED_KINDS
from ikgui.storage.queries import chunks, event_contents, execute_sql

_INDEXED = frozenset(INDEXED_KINDS)
_KIND_LIST = ", ".join(f"'{k}'" for k in INDEXED_KINDS)
#: Ids per ``IN (...)`` list (well under SQLite's limit of bound parameters).
CHUNK = 500


def match_expression(words: Iterable[str]) -> str:
    """An FTS5 query matching rows that contain every word (each a quoted string)."""
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


def indexed(kind: str, content: str, streaming: bool) -> str:
    """What the index holds of an event (as the ``event_text`` view gives it): the first
    ``FTS_CHARS`` characters of a searchable kind's text, nothing while it streams."""
    if streaming or kind not in _INDEXED:
        return ""
    return content[:FTS_CHARS]


def _marks(n: int) -> str:
    return ", ".join("?" * n)


class SqliteDialect:
    kind = "sqlite"
    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, path: Path) -> None:
        self.path: Path | None = path
        self._file = path

    def describe(self) -> str:
        return f"SQLite {self._file}"

    def atomic(self, db: Database) -> AbstractContextManager[Any]:
        return db.atomic("IMMEDIATE")

    def error(self, exc: BaseException, *, writing: bool) -> StorageError:
        return storage_error(self._file, exc, writing=writing)

    def closed_error(self) -> StorageError:
        return StorageError(f"The database {self._file} is already closed.")

    def silent_error(self) -> StorageError:
        return StorageError(f"The database {self._file} does not answer.")

    def schema_version(self, db: Database) -> int:
        return int(execute_sql(db, "PRAGMA user_version").fetchone()[0])

    def data_version(self, db: Database) -> int:
        return int(execute_sql(db, "PRAGMA data_version").fetchone()[0])

    def send_lock(self, conv_id: str) -> FileSendLock:
        """A lock file in the ``locks`` folder next to the database (see ``locks``)."""
        return FileSendLock(self._file.parent / "locks", conv_id)

    def close(self) -> None:
        pass

    # -- index maintenance (inside the store's write transactions) --------------------

    def index_event(
        self, db: Database, event_id: int, kind: str, content: str, streaming: bool
    ) -> None:
        text = indexed(kind, content, streaming)
        if text:
            execute_sql(
                db, "INSERT INTO event_fts (rowid, content) VALUES (?, ?)", (event_id, text)
            )

    def unindex_event(
        self, db: Database, event_id: int, kind: str, content: str, streaming: bool
    ) -> None:
        # External content: the 'delete' command needs exactly the text that was indexed.
        text = indexed(kind, content, streaming)
        if text:
            execute_sql(
                db,
                "INSERT INTO event_fts (event_fts, rowid, content) VALUES ('delete', ?, ?)",
                (event_id, text),
            )

    def unindex_conversations(self, db: Database, conv_ids: Sequence[str]) -> None:
        for chunk in chunks(conv_ids, CHUNK):
            marks = _marks(len(chunk))
            execute_sql(
                db,
                "INSERT INTO event_fts (event_fts, rowid, content) "
                "SELECT 'delete', id, content FROM event_text WHERE id IN (SELECT id FROM "
                f"event WHERE conversation_id IN ({marks}) AND kind IN ({_KIND_LIST}))",
                chunk,
            )
            execute_sql(db, f"DELETE FROM title_fts WHERE conversation_id IN ({marks})", chunk)
            execute_sql(
                db,
                "INSERT INTO event_file_fts (event_file_fts, rowid, content) "
                "SELECT 'delete', id, content FROM event_file_text WHERE id IN (SELECT ef.id "
                "FROM event_file ef JOIN event e ON e.id = ef.event_id "
                f"WHERE e.conversation_id IN ({marks}))",
                chunk,
            )

    def index_files(self, db: Database, link_ids: Sequence[int]) -> None:
        files.index_links(db, self.kind, link_ids)

    def set_title(self, db: Database, conv_id: str, title: str | None, *, new: bool) -> None:
        if not new:
            execute_sql(db, "DELETE FROM title_fts WHERE conversation_id = ?", (conv_id,))
        if title:
            execute_sql(
                db, "INSERT INTO title_fts (title, conversation_id) VALUES (?, ?)", (title, conv_id)
            )

    def maybe_streaming(self) -> ColumnBase:
        # Written out: the partial index ``event_streaming`` names this very expression.
        return SQL("instr(data, '\"streaming\"') > 0")

    # -- queries ------------------------------------------------------------------------

    def event_matches(self, db: Database, words: Sequence[str], limit: int) -> list[Any]:
        # Newest first, so the first match seen per conversation is its newest one. No
        # bm25: its IDF statistics cost a pass over each word's whole posting list.
        cursor = execute_sql(
            db,
            "SELECT e.conversation_id, event_fts.rowid FROM event_fts "
            "CROSS JOIN event e ON e.id = event_fts.rowid "
            "CROSS JOIN conversation c ON c.id = e.conversation_id "
            "WHERE event_fts MATCH ? AND c.trashed_at IS NULL "
            "ORDER BY event_fts.rowid DESC LIMIT ?",
            (match_expression(words), limit),
        )
        return list(cursor.fetchall())

    def title_matches(self, db: Database, words: Sequence[str]) -> list[Any]:
        cursor = execute_sql(
            db,
            "SELECT t.conversation_id, c.updated_at FROM title_fts t "
            "CROSS JOIN conversation c ON c.id = t.conversation_id "
            "WHERE title_fts MATCH ? AND c.trashed_at IS NULL",
            (match_expression(words),),
        )
        return list(cursor.fetchall())

    def match_texts(
        self, db: Database, words: Sequence[str], event_ids: Sequence[int]
    ) -> dict[int, str]:
        if not event_ids:
            return {}
        return dict(event_contents(len(event_ids)).run(db, *event_ids).fetchall())

    def file_matches(self, db: Database, words: Sequence[str], limit: int) -> list[Any]:
        cursor = execute_sql(
            db,
            "SELECT e.conversation_id, ef.event_id, ef.id FROM event_file_fts "
            "CROSS JOIN event_file ef ON ef.id = event_file_fts.rowid "
            "CROSS JOIN event e ON e.id = ef.event_id "
            "CROSS JOIN conversation c ON c.id = e.conversation_id "
            "WHERE event_file_fts MATCH ? AND c.trashed_at IS NULL "
            "ORDER BY ef.event_id DESC LIMIT ?",
            (match_expression(words), limit),
        )
        return list(cursor.fetchall())

    def file_texts(self, db: Database, link_ids: Sequence[int]) -> dict[int, str]:
        if not link_ids:
            return {}
        cursor = execute_sql(
            db,
            "SELECT id, substr(content, 1, 100000) FROM event_file_text "
            f"WHERE id IN ({_marks(len(link_ids))})",
            list(link_ids),
        )
        return {int(i): text for i, text in cursor.fetchall()}


def rebuild(conn: sqlite3.Connection) -> None:
    """Rebuild both indexes from the tables (bulk loads, repairs), then merge them."""
    conn.execute("INSERT INTO event_fts (event_fts) VALUES ('rebuild')")
    conn.execute("DELETE FROM title_fts")
    conn.execute(
        "INSERT INTO title_fts (title, conversation_id) "
        "SELECT title, id FROM conversation WHERE title IS NOT NULL AND title != ''"
    )
    conn.execute("INSERT INTO event_fts (event_fts) VALUES ('optimize')")
    conn.execute("INSERT INTO event_file_fts (event_file_fts) VALUES ('rebuild')")

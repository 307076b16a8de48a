"""What differs between the two databases, behind one small protocol.

The store (:mod:`ikgui.storage.repository`) runs its hot queries as SQL
(:mod:`ikgui.storage.queries`) and builds the others with peewee on the models of
:mod:`ikgui.storage.models`; the few things SQL dialects do differently live in one
module per database: :mod:`ikgui.storage.dialect_sqlite` (FTS5, ``BEGIN IMMEDIATE``,
lock files, ``PRAGMA data_version``) and :mod:`ikgui.storage.dialect_postgres`
(``tsvector``/GIN, advisory locks, reconnecting after a lost connection).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from peewee import ColumnBase, Database

from ikgui.domain.errors import StorageError
from ikgui.domain.ports import SendLock


class Dialect(Protocol):
    #: "sqlite" or "postgresql".
    kind: str
    #: The SQLite file (``None`` on PostgreSQL).
    path: Path | None
    #: The driver's exceptions (besides peewee's).
    errors: tuple[type[BaseException], ...]

    def describe(self) -> str:
        """The store in words, without a password ("SQLite /path", "PostgreSQL u@h:p/db")."""
        ...

    def atomic(self, db: Database) -> AbstractContextManager[Any]:
        """A write transaction (a savepoint when nested)."""
        ...

    def error(self, exc: BaseException, *, writing: bool) -> StorageError:
        """``exc`` (a driver or peewee failure) in plain words."""
        ...

    def closed_error(self) -> StorageError: ...

    def silent_error(self) -> StorageError:
        """What a window's call says when the server does not answer in time."""
        ...

    def schema_version(self, db: Database) -> int: ...

    def data_version(self, db: Database) -> int:
        """A number that changes when another connection commits."""
        ...

    def send_lock(self, conv_id: str) -> SendLock: ...

    def close(self) -> None:
        """Release what the dialect holds besides the database's connections."""
        ...

    # -- the full-text index ------------------------------------------------------
    def index_event(
        self, db: Database, event_id: int, kind: str, content: str, streaming: bool
    ) -> None: ...

    def unindex_event(
        self, db: Database, event_id: int, kind: str, content: str, streaming: bool
    ) -> None: ...

    def unindex_conversations(self, db: Database, conv_ids: Sequence[str]) -> None:
        """Take the events of ``conv_ids`` and the files they list out of the index."""
        ...

    def index_files(self, db: Database, link_ids: Sequence[int]) -> None:
        """Index new ``event_file`` rows: the name each was attached under and its text."""
        ...

    def set_title(self, db: Database, conv_id: str, title: str | None, *, new: bool) -> None: ...

    def maybe_streaming(self) -> ColumnBase:
        """A cheap filter on ``EventRow`` for replies that may still be streaming (the
        exact test is done in Python); it matches the partial index of both schemas."""
        ...

    def event_matches(self, db: Database, words: Sequence[str], limit: int) -> list[Any]:
        """``(conversation id, event id)`` of the newest ``limit`` messages holding every
        word, newest first, of conversations not in the Trash."""
        ...

    def title_matches(self, db: Database, words: Sequence[str]) -> list[Any]:
        """``(conversation id, updated_at)`` of conversations not in the Trash whose
        title holds every word."""
        ...

    def match_texts(
        self, db: Database, words: Sequence[str], event_ids: Sequence[int]
    ) -> dict[int, str]:
        """Plain text around the match in each event (trimmed to a snippet later)."""
        ...

    def file_matches(self, db: Database, words: Sequence[str], limit: int) -> list[Any]:
        """``(conversation id, event id, event_file id)`` of the newest ``limit`` files
        listed by events whose name and text hold every word, newest event first, of
        conversations not in the Trash."""
        ...

    def file_texts(self, db: Database, link_ids: Sequence[int]) -> dict[int, str]:
        """The name and (the start of) the text of each ``event_file`` row."""
        ...

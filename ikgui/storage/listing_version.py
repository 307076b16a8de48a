"""The listing's version: a number that moves when what a listing of conversations shows
may have changed, and stays when only existing events changed (a reply growing in
another process: its ``update_event`` saves, about once a second).

SQLite: the counter ``listing_change.n``, kept by the triggers of schema 4 (every insert
or delete of a conversation or tag, and every update of a conversation's listed columns,
``migrations._V4_LISTED``; a draft or usage update is not one). One row by its key.

PostgreSQL: no query at all. The triggers ``NOTIFY ikgui_changes`` naming the table a
statement wrote (``conversation_unlisted`` when it wrote none of the listed columns, since
schema 4); the change listener counts the notifications but ``event`` and
``conversation_unlisted`` ones (``ChangeListener.listing_version``). An appended event
always writes its conversation's row too (``updated_at``, the message count), so it
counts. Without a listener (it could not be made) every change counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peewee import Database

from ikgui.storage.queries import execute_sql

if TYPE_CHECKING:
    from ikgui.storage.dialect import Dialect

_SQLITE = "SELECT n FROM listing_change WHERE id = 1"


def read(dialect: Dialect, db: Database) -> int:
    """The listing version on ``db`` (inside the store's read)."""
    if dialect.kind == "postgresql":
        version = int(dialect.data_version(db))  # (starts the listener)
        listener = getattr(dialect, "listener", None)
        return version if listener is None else int(listener.listing_version)
    row = execute_sql(db, _SQLITE).fetchone()
    return int(row[0]) if row else 0

"""The hot queries, written as SQL: one text, or one per database where they differ.

These run thousands of times (the fork-chain counts, every append, every read of a
conversation's log or row), and building a query with peewee costs ~0.1–0.2 ms, more
than SQLite takes to answer an indexed lookup. So they are plain parameterised
statements run through peewee's ``Database.execute_sql``. Each is written once with
``?`` for its parameters; PostgreSQL's driver takes ``%s`` instead (so no text here may
hold a ``%`` or a literal ``?``). Queries whose shape varies with the call (the listing's
filters) are built with peewee on the models, through its documented surface.

Column lists come from the models (:mod:`ikgui.storage.models`), which a test keeps in
step with both schemas, so a row maps to values by the models' field names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from peewee import Database, SqliteDatabase

from ikgui.storage.models import CONVERSATION_FIELDS, EVENT_FIELDS

#: Above any event id: a bound that keeps every row.
MAX_ID = 2**63 - 1


class Query:
    """One statement: ``sqlite`` written with ``?`` marks; ``postgres`` the same with
    ``%s`` unless given (where the two databases spell something differently)."""

    __slots__ = ("postgres", "sqlite")

    def __init__(self, sqlite: str, postgres: str | None = None) -> None:
        if "%" in sqlite:
            raise ValueError(f"a query may not hold '%' (PostgreSQL's marks): {sqlite}")
        self.sqlite = sqlite
        self.postgres = sqlite.replace("?", "%s") if postgres is None else postgres

    def text(self, db: Database) -> str:
        return self.sqlite if isinstance(db, SqliteDatabase) else self.postgres

    def run(self, db: Database, *params: Any) -> Any:
        """Run it on ``db`` with ``params``; returns the driver's cursor."""
        return execute_sql(db, self.text(db), params)


def marks(count: int) -> str:
    """``count`` parameter marks for an ``IN (...)`` list (one text per length: cheap to
    write out, and each database caches its plan by text)."""
    return ", ".join("?" * count)


# -- conversations ----------------------------------------------------------------------

_CONVERSATION = ", ".join(f"conversation.{f.column_name}" for f in CONVERSATION_FIELDS)
#: A conversation's tags in one column, joined by ``models.TAG_SEP`` (``None`` without
#: tags): the one aggregate the two databases spell differently.
_TAG_NAMES_SQLITE = (
    "(SELECT group_concat(tag.name, char(31)) FROM tag WHERE tag.conversation_id = conversation.id)"
)
_TAG_NAMES_POSTGRES = (
    "(SELECT string_agg(tag.name, chr(31)) FROM tag WHERE tag.conversation_id = conversation.id)"
)
#: The head of every "conversations with their tags" query, per database.
_TAGGED_SQLITE = f"SELECT {_CONVERSATION}, {_TAG_NAMES_SQLITE} FROM conversation"
_TAGGED_POSTGRES = f"SELECT {_CONVERSATION}, {_TAG_NAMES_POSTGRES} FROM conversation"


def _tagged(where: str) -> Query:
    return Query(f"{_TAGGED_SQLITE} {where}", f"{_TAGGED_POSTGRES} {where.replace('?', '%s')}")


CONVERSATION_BY_ID = _tagged("WHERE conversation.id = ?")
CHILDREN = _tagged(
    "WHERE conversation.parent_id = ? ORDER BY conversation.created_at, conversation.id"
)
CONVERSATION_EXISTS = Query("SELECT id FROM conversation WHERE id = ?")
FORK_OF = Query("SELECT parent_id, fork_event_id FROM conversation WHERE id = ?")
ALL_TAGS = Query("SELECT conversation_id, name FROM tag")


def conversations_by_ids(count: int) -> Query:
    """The conversations (with their tags) of ``count`` ids."""
    return _tagged(f"WHERE conversation.id IN ({marks(count)})")


def children_of(count: int) -> Query:
    """The forks (with their tags) of ``count`` parents, oldest first."""
    return _tagged(
        f"WHERE conversation.parent_id IN ({marks(count)})"
        " ORDER BY conversation.created_at, conversation.id"
    )


def children_ids(count: int) -> Query:
    """``(id,)`` of the direct forks of ``count`` conversations."""
    return Query(f"SELECT id FROM conversation WHERE parent_id IN ({marks(count)})")


def tags_of(count: int) -> Query:
    """``(conversation id, tag)`` of ``count`` conversations."""
    return Query(f"SELECT conversation_id, name FROM tag WHERE conversation_id IN ({marks(count)})")


# -- events -----------------------------------------------------------------------------

#: A new event's conversation first: on PostgreSQL this locks its row, so two writers
#: appending to one conversation take turns and its ids stay in commit order.
BUMP_CONVERSATION = Query(
    "UPDATE conversation SET updated_at = ? WHERE id = ? RETURNING message_count, context_count"
)
INSERT_EVENT = Query(
    "INSERT INTO event"
    " (conversation_id, kind, content, data, created_at, tally_messages, tally_context)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"
)
_EVENT = ", ".join(f.column_name for f in EVENT_FIELDS)
EVENT_BY_ID = Query(f"SELECT {_EVENT} FROM event WHERE id = ?")
LAST_EVENT_ID = Query("SELECT MAX(id) FROM event WHERE conversation_id = ?")
#: ``(id, length of content, length of data)`` of the newest events, newest first.
TAIL_STAMP = Query(
    "SELECT id, LENGTH(content), COALESCE(LENGTH(data), 0) FROM event"
    " WHERE conversation_id = ? ORDER BY id DESC LIMIT ?"
)
_LOG = "SELECT id, kind, content, data, created_at FROM event"
#: A conversation's events with ``after < id <= upto``, oldest first.
LOG_BETWEEN = Query(f"{_LOG} WHERE conversation_id = ? AND id > ? AND id <= ? ORDER BY id")
#: A conversation's newest events, newest first.
LOG_TAIL = Query(f"{_LOG} WHERE conversation_id = ? ORDER BY id DESC LIMIT ?")


def event_contents(count: int) -> Query:
    """``(id, content)`` of ``count`` events."""
    return Query(f"SELECT id, content FROM event WHERE id IN ({marks(count)})")


# -- counts (see ikgui.storage.counts) --------------------------------------------------

_RANGE = "conversation_id = ? AND id > ? AND id <= ?"
#: The events a reader sees with ``after < id <= upto`` (failed replies not yet taken off).
COUNT_SHOWN = Query(
    f"SELECT COUNT(id) FROM event WHERE {_RANGE} AND kind NOT IN ('clear', 'retry', 'choose')"
)
EMPTY_REPLIES = Query(
    f"SELECT data FROM event WHERE {_RANGE} AND kind = 'assistant' AND content = ''"
)
LATEST_CLEAR = Query("SELECT MAX(id) FROM event WHERE conversation_id = ? AND kind = 'clear'")
LATEST_CLEAR_UPTO = Query(
    "SELECT MAX(id) FROM event WHERE conversation_id = ? AND kind = 'clear' AND id <= ?"
)
#: The domain's tally (``ikgui.domain.state.tally``) stored with one of a conversation's events.
EVENT_TALLY = Query(
    "SELECT kind, tally_messages, tally_context FROM event WHERE id = ? AND conversation_id = ?"
)
#: A conversation's messages with ids up to a bound: the tally of its last event there.
MESSAGES_UPTO = Query(
    "SELECT tally_messages FROM event WHERE conversation_id = ? AND id <= ?"
    " ORDER BY id DESC LIMIT 1"
)
SET_COUNTS = Query("UPDATE conversation SET message_count = ?, context_count = ? WHERE id = ?")
#: A growing event's text made it a message (or not): it and the events after it.
GROW_COUNTS = Query(
    "UPDATE conversation SET message_count = message_count + ?,"
    " context_count = context_count + ? WHERE id = ?"
)
GROW_TALLIES = Query(
    "UPDATE event SET tally_messages = tally_messages + ?, tally_context = tally_context + ?"
    " WHERE conversation_id = ? AND id >= ?"
)
SET_INHERITED = Query("UPDATE conversation SET inherited_count = ? WHERE id = ?")


def context_counts_of(count: int) -> Query:
    """``(id, context_count)`` of ``count`` conversations."""
    return Query(f"SELECT id, context_count FROM conversation WHERE id IN ({marks(count)})")


def inherited_counts_of(count: int) -> Query:
    """``(id, inherited_count)`` of ``count`` conversations."""
    return Query(f"SELECT id, inherited_count FROM conversation WHERE id IN ({marks(count)})")


# -- running ----------------------------------------------------------------------------


def chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` in slices of at most ``size`` (peewee's ``chunked`` pads each to size)."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def execute_sql(db: Database, sql: str, params: Sequence[Any] = ()) -> Any:
    """``db.execute_sql`` (typed): the driver's cursor."""
    return db.execute_sql(sql, params)  # type: ignore[no-untyped-call]


def execute_query(db: Database, query: Any) -> Any:
    """``db.execute`` of a peewee query (typed): the driver's cursor."""
    return db.execute(query)  # type: ignore[no-untyped-call]

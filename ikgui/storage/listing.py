"""Reading conversations: by id, forks, and the newest-first listing with its filters.

The lookups by id and of forks are SQL (:mod:`ikgui.storage.queries`); the listing, whose
shape varies with its filters, is built with peewee. Rows are mapped by name
(``conversation_from_row``). A few conversations (by id, forks, a page of the listing)
come with their tags joined in one column by a correlated aggregate (``group_concat`` or
``string_agg``; one query). A long listing (every conversation: ``conv list --json``,
the Trash) reads the conversations, then the tags in a second query, joined here: the
aggregate run once per row costs more than both (10,000 rows: ~35 ms on PostgreSQL and
~12 ms on SQLite, against ~3 ms for the tags).
The listing table (``ikgui conv list``) reads only the columns it shows (``table``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from peewee import SQL, Database, SqliteDatabase, Tuple, fn

from ikgui.domain.events import Conversation
from ikgui.domain.library.listing import ListingRow
from ikgui.storage import queries
from ikgui.storage import tags as tags_sql
from ikgui.storage.models import (
    CONVERSATION_FIELDS,
    ConversationRow,
    TagRow,
    conversation_from_fields,
    conversation_from_row,
)
from ikgui.storage.queries import chunks, execute_query

_Row = ConversationRow


#: A listing that may return more rows than this reads the tags in a second query (of
#: those rows, or of every conversation when it returned more than this).
JOIN_TAGS_ABOVE = 500


#: The columns of a ``ListingRow``, in its order.
_TABLE_FIELDS = (
    _Row.id,
    _Row.agent,
    _Row.message_count,
    _Row.updated_at,
    _Row.title,
    _Row.status,
    _Row.trashed_at,
    _Row.pinned,
)


def _tag_names(db: Database) -> Any:
    """The aggregate joining a group's tag names by ``TAG_SEP`` (spelled per database)."""
    if isinstance(db, SqliteDatabase):
        return fn.GROUP_CONCAT(TagRow.name, SQL("char(31)"))
    return fn.STRING_AGG(TagRow.name, SQL("chr(31)"))


def _select(db: Database, columns: str = "tagged") -> Any:
    """The conversation's fields and, last, its tags joined by ``TAG_SEP`` (the dialect's
    aggregate; ``None`` without tags); only the fields (``"fields"``), or only what the
    listing table shows (``"table"``)."""
    if columns == "table":
        return _Row.select(*_TABLE_FIELDS)
    if columns == "fields":
        return _Row.select(*CONVERSATION_FIELDS)
    names = TagRow.select(_tag_names(db)).where(TagRow.conversation == _Row.id)
    return _Row.select(*CONVERSATION_FIELDS, names)


def _conversations(rows: Sequence[Any]) -> list[Conversation]:
    return [conversation_from_row(r) for r in rows]


#: Parents per ``children_of`` query (an ``IN`` list; one SQL text per length).
CHILDREN_CHUNK = 500


def _tags_of(db: Database, conv_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The tags of ``conv_ids``, sorted, by conversation (those without tags are left
    out); for many conversations, every tag in the database (one scan of a small table)."""
    if not conv_ids:
        return {}
    many = len(conv_ids) > JOIN_TAGS_ABOVE
    cursor = queries.ALL_TAGS.run(db) if many else queries.tags_of(len(conv_ids)).run(db, *conv_ids)
    names: dict[str, list[str]] = {}
    for conv_id, name in cursor.fetchall():
        names.setdefault(conv_id, []).append(name)
    return {conv_id: tuple(sorted(found)) for conv_id, found in names.items()}


def by_id(db: Database, conv_id: str) -> Conversation | None:
    found = _conversations(queries.CONVERSATION_BY_ID.run(db, conv_id).fetchall())
    return found[0] if found else None


def by_ids(db: Database, conv_ids: Sequence[str]) -> dict[str, Conversation]:
    if not conv_ids:
        return {}
    found = _conversations(
        queries.conversations_by_ids(len(conv_ids)).run(db, *conv_ids).fetchall()
    )
    return {c.id: c for c in found}


def by_ids_chunked(db: Database, conv_ids: Sequence[str]) -> dict[str, Conversation]:
    """``by_ids`` for any number of ids: one query per ``CHILDREN_CHUNK`` of them."""
    found: dict[str, Conversation] = {}
    for chunk in chunks(list(dict.fromkeys(conv_ids)), CHILDREN_CHUNK):
        found.update(by_ids(db, chunk))
    return found


def children(db: Database, conv_id: str) -> list[Conversation]:
    return _conversations(queries.CHILDREN.run(db, conv_id).fetchall())


def children_of(db: Database, conv_ids: Sequence[str]) -> dict[str, list[Conversation]]:
    """The direct forks of each of ``conv_ids``, oldest first, in one query per
    ``CHILDREN_CHUNK`` parents (every one of ``conv_ids`` is a key)."""
    found: dict[str, list[Conversation]] = {conv_id: [] for conv_id in conv_ids}
    for chunk in chunks(list(found), CHILDREN_CHUNK):
        rows = queries.children_of(len(chunk)).run(db, *chunk).fetchall()
        for conv in _conversations(rows):
            found[conv.parent or ""].append(conv)
    return found


def _list_builder(
    db: Database,
    trashed: bool,
    pinned: bool | None,
    agent: bool,
    tags: int,
    before: bool,
    limit: bool,
    columns: str,
    after: bool = False,
    oldest_first: bool = False,
) -> Callable[..., Any]:
    """The listing query of one shape; its values come in the order of the arguments."""

    def build(*values: Any) -> Any:
        it = iter(values)
        where = _Row.trashed_at.is_null(not trashed)
        if pinned is not None:  # a constant: SQLite's partial index names ``pinned = 1``
            where &= _Row.pinned == SQL("1" if pinned else "0")
        if agent:
            where &= _Row.agent == next(it)
        if tags:
            where &= tags_sql.having_all([next(it) for _ in range(tags)], db)
        if before:
            where &= Tuple(_Row.updated_at, _Row.id) < Tuple(next(it), next(it))
        if after:
            where &= Tuple(_Row.updated_at, _Row.id) > Tuple(next(it), next(it))
        if oldest_first:  # (the sidebar's End reads from the oldest end: issue 26)
            order = (_Row.updated_at.asc(), _Row.id.asc())
        else:
            order = (_Row.updated_at.desc(), _Row.id.desc())
        query = _select(db, columns).where(where).order_by(*order)
        return query.limit(next(it)) if limit else query

    return build


def listing(
    db: Database,
    limit: int | None,
    agent: str | None,
    names: Sequence[str],
    trashed: bool,
    before: tuple[float, str] | None,
    pinned: bool | None,
    after: tuple[float, str] | None = None,
    oldest_first: bool = False,
) -> list[Conversation]:
    """See ``Store.list_conversations`` (``names``: the wanted tags, normalized)."""
    with_tags = limit is not None and limit <= JOIN_TAGS_ABOVE
    columns = "tagged" if with_tags else "fields"
    cursor = _list(db, columns, limit, agent, names, trashed, before, pinned, after, oldest_first)
    if with_tags:
        return _conversations(cursor.fetchall())
    rows = cursor.fetchall()
    tags = _tags_of(db, [r[0] for r in rows])
    none: tuple[str, ...] = ()
    return [conversation_from_fields(r, tags.get(r[0], none)) for r in rows]


def table(
    db: Database,
    limit: int | None,
    agent: str | None,
    names: Sequence[str],
    trashed: bool,
    before: tuple[float, str] | None,
    pinned: bool | None,
) -> list[ListingRow]:
    """``listing``'s conversations as the listing table shows them."""
    rows = _list(db, "table", limit, agent, names, trashed, before, pinned).fetchall()
    return list(map(ListingRow._make, rows))


def _list(
    db: Database,
    columns: str,
    limit: int | None,
    agent: str | None,
    names: Sequence[str],
    trashed: bool,
    before: tuple[float, str] | None,
    pinned: bool | None,
    after: tuple[float, str] | None = None,
    oldest_first: bool = False,
) -> Any:
    """The listing query's cursor."""
    shape = (
        trashed,
        pinned,
        agent is not None,
        len(names),
        before is not None,
        limit is not None,
        columns,
        after is not None,
        oldest_first,
    )
    values: list[Any] = []
    if agent is not None:
        values.append(agent)
    values.extend(names)
    if before is not None:
        values.extend(before)
    if after is not None:
        values.extend(after)
    if limit is not None:
        values.append(limit)
    return execute_query(db, _list_builder(db, *shape)(*values))

"""Reading conversations: by id, forks, and the newest-first listing with its filters.

Each query is built with peewee once per shape (:mod:`ikgui.storage.prepared`); rows are
mapped by name (``conversation_from_row``). A few conversations (by id, forks, a page of
the listing) come with their tags joined in one column by a correlated aggregate
(``TagNames``: ``group_concat`` or ``string_agg``; one query). A long listing (every
conversation: ``conv list --json``, the Trash) reads the conversations, then the tags in
a second query, joined here: the aggregate run once per row costs more than both
(10,000 rows: ~35 ms on PostgreSQL and ~12 ms on SQLite, against ~3 ms for the tags).
The listing table (``ikgui conv list``) reads only the columns it shows (``table``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from peewee import SQL, Database, Tuple

from ikgui.domain.events import Conversation
from ikgui.domain.listing import ListingRow
from ikgui.storage import tags as tags_sql
from ikgui.storage.dialect import TagNames
from ikgui.storage.models import (
    CONVERSATION_FIELDS,
    ConversationRow,
    TagRow,
    conversation_from_fields,
    conversation_from_row,
)
from ikgui.storage.prepared import Prepared, chunks, execute

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


def _select(columns: str = "tagged") -> Any:
    """The conversation's fields and, last, its tags joined by ``TAG_SEP`` (the dialect's
    aggregate; ``None`` without tags); only the fields (``"fields"``), or only what the
    listing table shows (``"table"``)."""
    if columns == "table":
        return _Row.select(*_TABLE_FIELDS)
    if columns == "fields":
        return _Row.select(*CONVERSATION_FIELDS)
    names = TagRow.select(TagNames(TagRow.name)).where(TagRow.conversation == _Row.id)
    return _Row.select(*CONVERSATION_FIELDS, names)


def _conversations(rows: Sequence[Any]) -> list[Conversation]:
    return [conversation_from_row(r) for r in rows]


_BY_ID = Prepared(lambda conv_id: _select().where(_Row.id == conv_id), str)
_BY_IDS = Prepared(lambda *ids: _select().where(_Row.id.in_(ids)), str, many=True)
_CHILDREN = Prepared(
    lambda conv_id: _select().where(_Row.parent == conv_id).order_by(_Row.created_at, _Row.id),
    str,
)
_CHILDREN_OF = Prepared(
    lambda *ids: _select().where(_Row.parent.in_(ids)).order_by(_Row.created_at, _Row.id),
    str,
    many=True,
)
#: Parents per ``children_of`` query (an ``IN`` list; one SQL text per length).
CHILDREN_CHUNK = 500
_ALL_TAGS = Prepared(lambda: TagRow.select(TagRow.conversation, TagRow.name))
_TAGS_OF = Prepared(
    lambda *ids: TagRow.select(TagRow.conversation, TagRow.name).where(
        TagRow.conversation.in_(ids)
    ),
    str,
    many=True,
)


def _tags_of(db: Database, conv_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The tags of ``conv_ids``, sorted, by conversation (those without tags are left
    out); for many conversations, every tag in the database (one scan of a small table)."""
    if not conv_ids:
        return {}
    many = len(conv_ids) > JOIN_TAGS_ABOVE
    cursor = _ALL_TAGS(db) if many else _TAGS_OF(db, *conv_ids)
    names: dict[str, list[str]] = {}
    for conv_id, name in cursor.fetchall():
        names.setdefault(conv_id, []).append(name)
    return {conv_id: tuple(sorted(found)) for conv_id, found in names.items()}


def by_id(db: Database, conv_id: str) -> Conversation | None:
    found = _conversations(_BY_ID(db, conv_id).fetchall())
    return found[0] if found else None


def by_ids(db: Database, conv_ids: Sequence[str]) -> dict[str, Conversation]:
    found = _conversations(_BY_IDS(db, *conv_ids).fetchall()) if conv_ids else []
    return {c.id: c for c in found}


def by_ids_chunked(db: Database, conv_ids: Sequence[str]) -> dict[str, Conversation]:
    """``by_ids`` for any number of ids: one query per ``CHILDREN_CHUNK`` of them."""
    found: dict[str, Conversation] = {}
    for chunk in chunks(list(dict.fromkeys(conv_ids)), CHILDREN_CHUNK):
        found.update(by_ids(db, chunk))
    return found


def children(db: Database, conv_id: str) -> list[Conversation]:
    return _conversations(_CHILDREN(db, conv_id).fetchall())


def children_of(db: Database, conv_ids: Sequence[str]) -> dict[str, list[Conversation]]:
    """The direct forks of each of ``conv_ids``, oldest first, in one query per
    ``CHILDREN_CHUNK`` parents (every one of ``conv_ids`` is a key)."""
    found: dict[str, list[Conversation]] = {conv_id: [] for conv_id in conv_ids}
    for chunk in chunks(list(found), CHILDREN_CHUNK):
        for conv in _conversations(_CHILDREN_OF(db, *chunk).fetchall()):
            found[conv.parent or ""].append(conv)
    return found


def _list_builder(
    trashed: bool,
    pinned: bool | None,
    agent: bool,
    tags: int,
    before: bool,
    limit: bool,
    columns: str,
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
            where &= tags_sql.having_all([next(it) for _ in range(tags)])
        if before:
            where &= Tuple(_Row.updated_at, _Row.id) < Tuple(next(it), next(it))
        query = _select(columns).where(where).order_by(_Row.updated_at.desc(), _Row.id.desc())
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
) -> list[Conversation]:
    """See ``Store.list_conversations`` (``names``: the wanted tags, normalized)."""
    with_tags = limit is not None and limit <= JOIN_TAGS_ABOVE
    columns = "tagged" if with_tags else "fields"
    cursor = _list(db, columns, limit, agent, names, trashed, before, pinned)
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
    )
    values: list[Any] = []
    kinds: list[type] = []
    if agent is not None:
        values.append(agent)
        kinds.append(str)
    values.extend(names)
    kinds.extend([str] * len(names))
    if before is not None:
        values.extend(before)
        kinds.extend([float, str])
    if limit is not None:
        values.append(limit)
        kinds.append(int)
    return execute(db, ("listing", shape), _list_builder(*shape), kinds, values)

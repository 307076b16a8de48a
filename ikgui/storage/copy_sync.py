"""Bringing rows up to date in a copy's destination (see :mod:`ikgui.storage.copy`).

One batch of source rows (id first) is compared with the destination's rows of the
same ids: rows missing there are inserted, rows whose compared columns differ are
upserted (``ON CONFLICT (id) DO UPDATE``, every column but the id), rows that are equal
are left alone (so a re-run that finds nothing changed writes nothing). What is compared
depends on the table and the destination (:class:`Side`): a conversation's whole row; an
event's content and data, sent whole from a local SQLite file but only as MD5 digests
from a PostgreSQL server (the source side computes the same digests), so a re-run does
not pull a million texts over the network.

SQLite's full-text indexes (external content: rows are added to and taken out of them
explicitly) are kept right in the batch's transaction: the changed rows' old text comes
out before the update, and the new and changed rows' text goes in after it.
PostgreSQL's generated search column follows by itself.

Tags are set per conversation (:func:`sync_tags`): the destination's tags of every
copied conversation become exactly the source's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from peewee import ColumnBase, Database, Field, Model, fn

from ikgui.storage.models import ConversationRow, EventRow, TagRow
from ikgui.storage.queries import chunks, execute_sql

#: Does something to the destination's search index for the rows with these ids.
Index = Callable[[Database, list[Any]], None]


@dataclass(frozen=True)
class Side:
    """How one table's rows are compared, and its index kept, in one destination."""

    #: Destination columns selected after the id, compared with ``fingerprint(row)``.
    compare: tuple[ColumnBase, ...]
    #: The same values computed from a source row (all the model's fields, id first).
    fingerprint: Callable[[Sequence[Any]], tuple[Any, ...]]
    #: Takes rows out of the search index (before they change); adds them (after).
    unindex: Index | None = None
    index: Index | None = None


@dataclass
class Synced:
    added: int = 0
    updated: int = 0
    same: int = 0


def _position(fields: Sequence[Field], field: Field) -> int:
    """Where ``field`` is in ``fields`` (peewee's ``==`` builds an expression)."""
    return next(i for i, candidate in enumerate(fields) if candidate is field)


def _md5(text: str | None) -> str | None:
    if text is None:
        return None
    return hashlib.md5(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


def _pg_md5(column: Field) -> ColumnBase:
    # convert_to: the digest of the UTF-8 bytes whatever the server's encoding.
    return cast(ColumnBase, fn.md5(fn.convert_to(column, "UTF8")))


def conversation_side(dest_kind: str) -> Side:
    fields = list(ConversationRow._meta.sorted_fields)
    sqlite = dest_kind == "sqlite"
    return Side(
        compare=tuple(fields[1:]),
        fingerprint=lambda row: tuple(row[1:]),
        unindex=_unindex_titles if sqlite else None,
        index=_index_titles if sqlite else None,
    )


def event_side(dest_kind: str) -> Side:
    fields = list(EventRow._meta.sorted_fields)
    content = _position(fields, EventRow.content)
    data = _position(fields, EventRow.data)
    if dest_kind == "sqlite":
        return Side(
            compare=(EventRow.content, EventRow.data),
            fingerprint=lambda row: (row[content], row[data]),
            unindex=_unindex_events,
            index=_index_events,
        )
    return Side(
        compare=(_pg_md5(EventRow.content), _pg_md5(EventRow.data)),
        fingerprint=lambda row: (_md5(row[content]), _md5(row[data])),
    )


def sync_batch(dest: Database, model: type[Model], rows: list[Any], side: Side) -> Synced:
    """Insert the ``rows`` (all the model's fields, id first) that ``dest`` lacks and
    update those that differ, in one transaction."""
    done = Synced()
    if not rows:
        return done
    fields = list(model._meta.sorted_fields)
    key = cast(Field, model._meta.primary_key)
    with dest.atomic():
        query = model.select(key, *side.compare).where(key.in_([row[0] for row in rows]))
        there = {found[0]: tuple(found[1:]) for found in query.tuples().execute(dest)}
        new = [row for row in rows if row[0] not in there]
        changed = [
            row for row in rows if row[0] in there and there[row[0]] != side.fingerprint(row)
        ]
        done.same = len(rows) - len(new) - len(changed)
        if side.unindex is not None and changed:
            side.unindex(dest, [row[0] for row in changed])
        if new:
            done.added = insert_rows(dest, model, fields, new)
        if changed:
            upsert = model.insert_many(changed, fields=fields).on_conflict(
                conflict_target=[key], preserve=fields[1:]
            )
            upsert.execute(dest)
            done.updated = len(changed)
        if side.index is not None and (new or changed):
            side.index(dest, [row[0] for row in (*new, *changed)])
    return done


def insert_rows(dest: Database, model: type[Model], fields: list[Field], rows: list[Any]) -> int:
    """INSERT ``rows``, skipping any that clash (a row another writer added meanwhile)."""
    query = model.insert_many(rows, fields=fields).on_conflict_ignore().as_rowcount()
    return cast(int, query.execute(dest))


# -- tags: the source's set per copied conversation -------------------------------------


def sync_tags(source: Database, dest: Database, conv_ids: Sequence[str], batch: int) -> Synced:
    """Make the tags of each of ``conv_ids`` in ``dest`` exactly those in ``source``.

    A tag keeps its id when the destination has that id free; otherwise (the id is
    another conversation's tag there) it is added under a new id. ``added``/``updated``
    count tags added and taken away; ``same`` those already there."""
    columns = (TagRow.id, TagRow.conversation, TagRow.name)
    want = set(TagRow.select(*columns).tuples().execute(source))
    have: set[tuple[Any, ...]] = set()
    for chunk in chunks(conv_ids, batch):
        query = TagRow.select(*columns).where(TagRow.conversation.in_(list(chunk)))
        have.update(query.tuples().execute(dest))
    pairs_wanted = {row[1:] for row in want}
    pairs_had = {row[1:] for row in have}
    gone = sorted(row[0] for row in have - want)
    new = sorted(want - have)
    with dest.atomic():
        for ids in chunks(gone, batch):
            TagRow.delete().where(TagRow.id.in_(list(ids))).execute(dest)
        for rows in chunks(new, batch):
            _add_tags(dest, list(rows))
    return Synced(
        added=len(pairs_wanted - pairs_had),
        updated=len(pairs_had - pairs_wanted),
        same=len(pairs_wanted & pairs_had),
    )


def _add_tags(dest: Database, rows: list[tuple[Any, ...]]) -> None:
    taken = {
        found[0]
        for found in TagRow.select(TagRow.id)
        .where(TagRow.id.in_([row[0] for row in rows]))
        .tuples()
        .execute(dest)
    }
    keep = [row for row in rows if row[0] not in taken]
    moved = [row[1:] for row in rows if row[0] in taken]
    insert_rows(dest, TagRow, [TagRow.id, TagRow.conversation, TagRow.name], keep)
    insert_rows(dest, TagRow, [TagRow.conversation, TagRow.name], moved)


# -- SQLite's full-text indexes ------------------------------------------------------------


def _marks(ids: list[Any]) -> str:
    return ", ".join("?" * len(ids))


def _index_events(dest: Database, ids: list[Any]) -> None:
    execute_sql(
        dest,
        "INSERT INTO event_fts (rowid, content) SELECT id, content FROM event_text "
        f"WHERE id IN ({_marks(ids)})",
        ids,
    )


def _unindex_events(dest: Database, ids: list[Any]) -> None:
    # External content: the 'delete' command takes exactly the text that was indexed,
    # which the view still gives for these rows (they are not updated yet).
    execute_sql(
        dest,
        "INSERT INTO event_fts (event_fts, rowid, content) SELECT 'delete', id, content "
        f"FROM event_text WHERE id IN ({_marks(ids)})",
        ids,
    )


def _index_titles(dest: Database, ids: list[Any]) -> None:
    execute_sql(
        dest,
        "INSERT INTO title_fts (title, conversation_id) SELECT title, id FROM conversation "
        f"WHERE id IN ({_marks(ids)}) AND title IS NOT NULL AND title != ''",
        ids,
    )


def _unindex_titles(dest: Database, ids: list[Any]) -> None:
    execute_sql(dest, f"DELETE FROM title_fts WHERE conversation_id IN ({_marks(ids)})", ids)

"""Copying a whole history from one opened store to another (``ikgui db copy``).

Every conversation, event and tag is copied with all its columns and the same ids
(fork links and ``fork_event_id`` keep pointing where they did), through the peewee
models on each store's database, in batches of :data:`BATCH` rows. Rows whose id the
destination already holds are skipped (``on_conflict_ignore``), so a copy can be run
again: the second run copies nothing and says so. Parents are copied before their
forks. SQLite's full-text indexes take each batch's new rows in the batch's transaction;
afterwards PostgreSQL's id sequences are moved past the copied ids.

Copying into a database that holds a *different* history is refused before anything is
written: its event ids would clash with the copied ones.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from peewee import Database, Field, Model

from ikgui.domain.errors import StorageError
from ikgui.storage.models import ConversationRow, EventRow, TagRow
from ikgui.storage.prepared import execute_sql

BATCH = 2000
#: ``progress(what, done, total)``: called after each batch ("events", 40000, 1000000).
Progress = Callable[[str, int, int], None]
#: Adds the rows with these ids, just inserted, to the destination's search index.
Index = Callable[[Database, list[Any]], None]


@dataclass
class Copied:
    """What one copy did: rows copied per table, and rows skipped as already there."""

    conversations: int = 0
    events: int = 0
    tags: int = 0
    skipped: int = 0

    def summary(self, where: str) -> str:
        return (
            f"Copied {_count(self.conversations, 'conversation')}, "
            f"{_count(self.events, 'event')}, {_count(self.tags, 'tag')} to {where} "
            f"({self.skipped:,} already there)."
        )


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _fields(model: type[Model]) -> list[Field]:
    return list(model._meta.sorted_fields)


def _position(fields: list[Field], field: Field) -> int:
    """Where ``field`` is in ``fields`` (peewee's ``==`` builds an expression)."""
    return next(i for i, candidate in enumerate(fields) if candidate is field)


def copy_history(
    source: Database,
    dest: Database,
    *,
    dest_kind: str,
    progress: Progress | None = None,
    batch: int = BATCH,
) -> Copied:
    """Copy everything ``source`` holds into ``dest`` (``dest_kind``: "sqlite" or
    "postgresql"); see the module's docstring."""
    report: Progress = progress or (lambda what, done, total: None)
    copied = Copied()
    try:
        with source.atomic():  # one consistent snapshot of the source
            _refuse_other_history(source, dest, batch)
            index = dest_kind == "sqlite"
            copied.conversations, skipped = _copy_conversations(
                source, dest, batch, report, _index_titles if index else None
            )
            copied.skipped += skipped
            copied.events, skipped = _copy_keyed(
                EventRow, source, dest, batch, report, "events", _index_events if index else None
            )
            copied.skipped += skipped
            copied.tags, skipped = _copy_tags(source, dest, batch, report)
            copied.skipped += skipped
    except BaseException:
        if dest_kind == "postgresql":  # what was copied must not clash with new ids
            with contextlib.suppress(Exception):
                _move_sequences(dest)
        raise
    if dest_kind == "postgresql":
        _move_sequences(dest)
    return copied


# -- conversations: parents before their forks --------------------------------------


def _copy_conversations(
    source: Database, dest: Database, batch: int, report: Progress, index: Index | None
) -> tuple[int, int]:
    fields = _fields(ConversationRow)
    rows = list(ConversationRow.select(*fields).tuples().execute(source))
    ordered = parents_first(rows, _position(fields, ConversationRow.parent))
    copied = skipped = 0
    for start in range(0, len(ordered), batch):
        chunk = ordered[start : start + batch]
        added = _insert(dest, ConversationRow, fields, chunk, index)
        copied += added
        skipped += len(chunk) - added
        report("conversations", start + len(chunk), len(ordered))
    return copied, skipped


def parents_first(rows: Sequence[tuple[Any, ...]], parent_at: int) -> list[tuple[Any, ...]]:
    """``rows`` (conversation tuples, id first) with every parent before its forks."""
    children: dict[Any, list[tuple[Any, ...]]] = {}
    ids = {row[0] for row in rows}
    roots = []
    for row in rows:
        parent = row[parent_at]
        if parent is None or parent not in ids:
            roots.append(row)
        else:
            children.setdefault(parent, []).append(row)
    ordered: list[tuple[Any, ...]] = []
    level = roots
    while level:
        ordered.extend(level)
        level = [child for row in level for child in children.get(row[0], ())]
    return ordered


# -- events (and tags): keyset pages in id order --------------------------------------


def _pages(model: type[Model], source: Database, batch: int) -> Iterator[list[tuple[Any, ...]]]:
    fields = _fields(model)
    key = model._meta.primary_key
    last: int | None = None
    while True:
        query = model.select(*fields).order_by(key).limit(batch)
        if last is not None:
            query = query.where(key > last)
        page = list(query.tuples().execute(source))
        if not page:
            return
        yield page
        last = page[-1][0]


def _copy_keyed(
    model: type[Model],
    source: Database,
    dest: Database,
    batch: int,
    report: Progress,
    what: str,
    index: Index | None = None,
) -> tuple[int, int]:
    total = model.select().count(source)
    fields = _fields(model)
    copied = skipped = done = 0
    for page in _pages(model, source, batch):
        added = _insert(dest, model, fields, page, index)
        copied += added
        skipped += len(page) - added
        done += len(page)
        report(what, done, total)
    return copied, skipped


def _copy_tags(source: Database, dest: Database, batch: int, report: Progress) -> tuple[int, int]:
    """Tags keep their ids; a tag whose id the destination uses for another tag is added
    under a new id (only the conversation and name matter)."""
    copied, skipped = _copy_keyed(TagRow, source, dest, batch, report, "tags")
    if not skipped:
        return copied, skipped
    have = set(TagRow.select(TagRow.conversation, TagRow.name).tuples().execute(dest))
    missing = [
        (conv, name)
        for conv, name in TagRow.select(TagRow.conversation, TagRow.name).tuples().execute(source)
        if (conv, name) not in have
    ]
    for start in range(0, len(missing), batch):
        chunk = missing[start : start + batch]
        with dest.atomic():
            added = _insert_rows(dest, TagRow, [TagRow.conversation, TagRow.name], chunk)
        copied += added
        skipped -= added
    return copied, skipped


def _insert(
    dest: Database,
    model: type[Model],
    fields: list[Field],
    rows: list[Any],
    index: Index | None = None,
) -> int:
    """Insert those of ``rows`` (id first) that are not there yet, and ``index`` them in
    the same transaction; returns how many were inserted. Rows already there are left
    out before the INSERT: PostgreSQL would compute their search column before finding
    the conflict, which makes a second run as slow as the first."""
    if not rows:
        return 0
    with dest.atomic():
        key = cast(Field, model._meta.primary_key)
        ids = [row[0] for row in rows]
        there = {r[0] for r in model.select(key).where(key.in_(ids)).tuples().execute(dest)}
        new = [row for row in rows if row[0] not in there]
        if not new:
            return 0
        added = _insert_rows(dest, model, fields, new)
        if index is not None:
            index(dest, [row[0] for row in new])
        return added


def _insert_rows(dest: Database, model: type[Model], fields: list[Field], rows: list[Any]) -> int:
    """INSERT ``rows``, skipping any that clash (a row another writer added meanwhile)."""
    query = model.insert_many(rows, fields=fields).on_conflict_ignore().as_rowcount()
    return cast(int, query.execute(dest))


# -- refusing a different history ------------------------------------------------------


def _refuse_other_history(source: Database, dest: Database, batch: int) -> None:
    """Refuse (before writing) a destination whose ids belong to other rows."""
    if not EventRow.select().limit(1).exists(dest) and not ConversationRow.select().exists(dest):
        return  # empty: the common case
    created = ConversationRow.created_at
    ours = list(ConversationRow.select(ConversationRow.id, created).tuples().execute(source))
    for page in _chunks(ours, batch):
        theirs = dict(
            ConversationRow.select(ConversationRow.id, created)
            .where(ConversationRow.id.in_([row[0] for row in page]))
            .tuples()
            .execute(dest)
        )
        for conv_id, at in page:
            if conv_id in theirs and theirs[conv_id] != at:
                raise _clash(f"conversation {conv_id}")
    columns = (EventRow.id, EventRow.conversation, EventRow.kind, EventRow.created_at)
    at = [_position(_fields(EventRow), column) for column in columns]
    for page in _pages(EventRow, source, batch):
        ids = [row[0] for row in page]
        theirs_events = {
            row[0]: row
            for row in EventRow.select(*columns).where(EventRow.id.in_(ids)).tuples().execute(dest)
        }
        for row in page:
            there = theirs_events.get(row[0])
            if there is not None and there != tuple(row[i] for i in at):
                raise _clash(f"event {row[0]}")


def _chunks(rows: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _clash(what: str) -> StorageError:
    return StorageError(
        f"The destination already holds a different history ({what} is another one there); "
        "nothing was copied. Copy into an empty database, or into a copy of this history."
    )


# -- after the copy ------------------------------------------------------------------------


def _move_sequences(dest: Database) -> None:
    """Make PostgreSQL's next event and tag ids follow the copied ones."""
    for table in ("event", "tag"):
        execute_sql(
            dest,
            "SELECT setval(seq, greatest(top, 1), top > 0) FROM (SELECT seq, greatest("
            f"coalesce((SELECT max(id) FROM {table}), 0), "
            "coalesce(pg_sequence_last_value(seq), 0)) AS top "
            f"FROM (SELECT pg_get_serial_sequence('{table}', 'id')::regclass AS seq) s) t",
        )


# SQLite's full-text indexes (external content: rows are added to them explicitly), kept
# in step batch by batch, so that a copy that stops half-way leaves them right.


def _index_events(dest: Database, ids: list[Any]) -> None:
    marks = ", ".join("?" * len(ids))
    execute_sql(
        dest,
        f"INSERT INTO event_fts (rowid, content) SELECT id, content FROM event_text "
        f"WHERE id IN ({marks})",
        ids,
    )


def _index_titles(dest: Database, ids: list[Any]) -> None:
    marks = ", ".join("?" * len(ids))
    execute_sql(
        dest,
        "INSERT INTO title_fts (title, conversation_id) SELECT title, id FROM conversation "
        f"WHERE id IN ({marks}) AND title IS NOT NULL AND title != ''",
        ids,
    )

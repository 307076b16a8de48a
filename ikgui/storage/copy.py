"""Copying a whole history from one opened store to another (``ikgui db copy``).

Every conversation, event, tag and attached file is copied with all its columns and the same ids
(fork links and ``fork_event_id`` keep pointing where they did), through the peewee
models on each store's database, in batches of :data:`BATCH` rows. A copy can be run
again, and brings the destination up to date (:mod:`ikgui.storage.copy_sync`): rows it
lacks are inserted; conversations and events it holds with other values (renamed,
pinned, trashed, a reply saved while it streamed) are updated; each copied
conversation's tags become the source's; rows that are equal are left alone, so a
second run with nothing changed writes nothing and says so. Parents are copied before
their forks. SQLite's full-text indexes are kept right in each batch's transaction;
afterwards PostgreSQL's id sequences are moved past the copied ids. Smart folders and
projects (SPEC §15) are copied by name (:func:`ikgui.storage.folders.copy_rows`).

Copying into a database that holds a *different* history is refused before anything is
written: its event ids would clash with the copied ones. That check is one pass over
both sides' events, which also notes the events to copy or update (compared as
:mod:`ikgui.storage.copy_sync` says), so a re-run reads each side's events once and then
only the few rows that changed.
"""

from __future__ import annotations

import contextlib
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from peewee import Database, Field, Model, PeeweeException

from ikgui.domain.errors import StorageError
from ikgui.storage import files, folders
from ikgui.storage.copy_sync import (
    Side,
    Synced,
    conversation_side,
    event_side,
    sync_batch,
    sync_tags,
)
from ikgui.storage.models import ConversationRow, EventRow
from ikgui.storage.queries import chunks, execute_sql

BATCH = 2000
#: ``progress(what, done, total)``: called after each batch ("events", 40000, 1000000).
Progress = Callable[[str, int, int], None]


@dataclass
class Copied:
    """What one copy did: rows copied per table, rows updated, tags taken away, and
    rows skipped as already there (and equal)."""

    conversations: int = 0
    events: int = 0
    tags: int = 0
    skipped: int = 0
    updated_conversations: int = 0
    updated_events: int = 0
    removed_tags: int = 0
    #: Attached files copied (each once, SPEC §13).
    files: int = 0
    #: Smart folders and projects copied or brought up to date (SPEC §15).
    folders: int = 0

    def summary(self, where: str) -> str:
        text = (
            f"Copied {_count(self.conversations, 'conversation')}, "
            f"{_count(self.events, 'event')}, {_count(self.tags, 'tag')} to {where}"
        )
        updated = [
            _count(n, noun)
            for n, noun in (
                (self.updated_conversations, "conversation"),
                (self.updated_events, "event"),
            )
            if n
        ]
        if updated:
            text += "; updated " + ", ".join(updated)
        if self.files:
            text += f"; copied {_count(self.files, 'attached file')}"
        if self.folders:
            noun = "smart folder or project" if self.folders == 1 else "smart folders or projects"
            text += f"; copied {self.folders:,} {noun}"
        if self.removed_tags:
            text += f"; removed {_count(self.removed_tags, 'tag')}"
        return f"{text} ({self.skipped:,} already there)."


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
    "postgresql"), bringing what is there up to date; see the module's docstring."""
    report: Progress = progress or (lambda what, done, total: None)
    copied = Copied()
    try:
        with source.atomic():  # one consistent snapshot of the source
            events = event_side(dest_kind)
            todo = _refuse_other_history(source, dest, batch, events)
            conv_ids, done = _copy_conversations(
                source, dest, batch, report, conversation_side(dest_kind)
            )
            copied.conversations, copied.updated_conversations = done.added, done.updated
            copied.skipped += done.same
            done = _copy_events(source, dest, batch, report, events, todo)
            copied.events, copied.updated_events = done.added, done.updated
            copied.skipped += done.same
            done = sync_tags(source, dest, conv_ids, batch)
            report("tags", done.added + done.same, done.added + done.same)
            copied.tags, copied.removed_tags = done.added, done.updated
            copied.skipped += done.same
            copied.files = files.copy_files(source, dest, dest_kind, batch)
            copied.folders = folders.copy_rows(source, dest)
    except BaseException as exc:
        if dest_kind == "postgresql":  # what was copied must not clash with new ids
            with contextlib.suppress(Exception):
                _move_sequences(dest)
        if isinstance(exc, (PeeweeException, *_driver_errors())):
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StorageError(
                f"The copy stopped ({reason}). What was copied stays; run the same command "
                "again to copy the rest."
            ) from exc
        raise
    if dest_kind == "postgresql":
        _move_sequences(dest)
        # The planner's statistics of what was just copied: without them PostgreSQL takes
        # the tables for empty until autovacuum's next pass, and the sidebar's first page
        # of a folder scans every conversation (10,000: 70-330 ms against 1 ms; issue 26).
        execute_sql(dest, "ANALYZE")
    return copied


def _driver_errors() -> tuple[type[Exception], ...]:
    """psycopg's errors, when the PostgreSQL side has loaded it."""
    psycopg = sys.modules.get("psycopg")
    error_class = getattr(psycopg, "Error", None)
    return (error_class,) if isinstance(error_class, type) else ()


def history_counts(database: Database) -> dict[str, int]:
    """Rows per table (and conversations in the Trash, and what the attached files
    hold) of a history (``ikgui db status``)."""
    from ikgui.storage.models import FileRow, TagRow

    trashed = ConversationRow.select().where(ConversationRow.trashed_at.is_null(False))
    return {
        "conversations": int(ConversationRow.select().count(database)),
        "trashed": int(trashed.count(database)),
        "events": int(EventRow.select().count(database)),
        "tags": int(TagRow.select().count(database)),
        "files": int(FileRow.select().count(database)),
        "file_bytes": files.total_bytes(database),
    }


def _add(total: Synced, batch: Synced) -> None:
    total.added += batch.added
    total.updated += batch.updated
    total.same += batch.same


# -- conversations: parents before their forks --------------------------------------


def _copy_conversations(
    source: Database, dest: Database, batch: int, report: Progress, side: Side
) -> tuple[list[str], Synced]:
    fields = _fields(ConversationRow)
    rows = list(ConversationRow.select(*fields).tuples().execute(source))
    ordered = parents_first(rows, _position(fields, ConversationRow.parent))
    total = Synced()
    for start in range(0, len(ordered), batch):
        chunk = ordered[start : start + batch]
        _add(total, sync_batch(dest, ConversationRow, chunk, side))
        report("conversations", start + len(chunk), len(ordered))
    return [row[0] for row in ordered], total


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


# -- events: keyset pages in id order ----------------------------------------------------


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


def _copy_events(
    source: Database,
    dest: Database,
    batch: int,
    report: Progress,
    side: Side,
    todo: array[int] | None,
) -> Synced:
    """Copy the events (``todo``: only those, the rest being there and equal)."""
    total_rows = EventRow.select().count(source)
    total = Synced()
    if todo is None:
        pages: Iterator[list[tuple[Any, ...]]] = _pages(EventRow, source, batch)
    else:
        total.same = total_rows - len(todo)
        pages = _rows_by_id(source, todo, batch)
    done = total.same
    for page in pages:
        _add(total, sync_batch(dest, EventRow, page, side))
        done += len(page)
        report("events", done, total_rows)
    return total


def _rows_by_id(source: Database, ids: array[int], batch: int) -> Iterator[list[tuple[Any, ...]]]:
    for chunk in chunks(ids, batch):
        query = EventRow.select(*_fields(EventRow)).where(EventRow.id.in_(list(chunk)))
        yield list(query.order_by(EventRow.id).tuples().execute(source))


# -- refusing a different history ------------------------------------------------------


def _refuse_other_history(
    source: Database, dest: Database, batch: int, side: Side
) -> array[int] | None:
    """Refuse (before writing) a destination whose ids belong to other rows; return the
    ids of the source's events it lacks or holds with other content (``None``: it is
    empty, every event is to copy). One pass over both, so that a re-run with little to
    do reads each side's events once."""
    if not EventRow.select().limit(1).exists(dest) and not ConversationRow.select().exists(dest):
        return None  # empty: the common case
    created = ConversationRow.created_at
    ours = list(ConversationRow.select(ConversationRow.id, created).tuples().execute(source))
    for page in chunks(ours, batch):
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
    todo: array[int] = array("q")
    for page in _pages(EventRow, source, batch):
        ids = [row[0] for row in page]
        query = EventRow.select(*columns, *side.compare).where(EventRow.id.in_(ids))
        theirs_events = {row[0]: row for row in query.tuples().execute(dest)}
        for row in page:
            there = theirs_events.get(row[0])
            if there is None:
                todo.append(row[0])
            elif there[: len(at)] != tuple(row[i] for i in at):
                raise _clash(f"event {row[0]}")
            elif there[len(at) :] != side.fingerprint(row):
                todo.append(row[0])
    return todo


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

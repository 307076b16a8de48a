"""The event log half of the store: appending and updating events, and reading a
conversation's log (the hot statements are SQL of :mod:`ikgui.storage.queries`, the rest
built with peewee on ``EventRow``; the full-text index is maintained by the dialect
inside the same transaction)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from peewee import SQL

from ikgui.domain.attachments import StoredFile, listed
from ikgui.domain.errors import NotFoundError
from ikgui.domain.events import Event, data_text
from ikgui.domain.state import tally
from ikgui.storage import counts, queries
from ikgui.storage import files as files_sql
from ikgui.storage.connection import StoreConnection
from ikgui.storage.models import EVENT_FIELDS, EventRow, event_from_row
from ikgui.storage.queries import execute_query


def streaming(data: dict[str, Any] | None) -> bool:
    """A reply still streaming (``data.streaming`` set): not indexed until it is
    finished, so its periodic saves never re-index the growing text."""
    return bool(data) and data.get("streaming") is not None  # type: ignore[union-attr]


def streaming_raw(raw: str | None) -> bool:
    if not raw:
        return False
    try:
        data = json.loads(raw)
    except ValueError:
        return False
    return isinstance(data, dict) and streaming(data)


def _read_log(db: Any, conv_id: str, after: int | None, upto: int | None, tail: int | None) -> Any:
    if tail is not None:
        return queries.LOG_TAIL.run(db, conv_id, tail).fetchall()
    low = 0 if after is None else after  # ids start at 1
    high = queries.MAX_ID if upto is None else upto
    return queries.LOG_BETWEEN.run(db, conv_id, low, high).fetchall()


def _log(conv_id: str, rows: Sequence[Any]) -> list[Event]:
    """Events from rows of ``queries.LOG_BETWEEN`` or ``LOG_TAIL`` (the conversation id
    is known): ``(id, kind, content, data, created_at)``, named once, here."""
    return [
        Event(event_id, conv_id, kind, content, None, created_at, raw_data=data)
        for event_id, kind, content, data, created_at in rows
    ]


class EventStore(StoreConnection):
    def append_event(
        self,
        conv_id: str,
        kind: str,
        content: str = "",
        data: dict[str, Any] | None = None,
        created_at: float | None = None,
        files: Sequence[StoredFile] = (),
    ) -> Event:
        when = time.time() if created_at is None else float(created_at)
        raw = data_text(data)  # (made already off the event loop for a large output)
        text = content or ""
        event = Event(0, conv_id, kind, text, dict(data) if data else None, when, raw_data=raw)
        with self._writing() as db:
            # The conversation's row first: on PostgreSQL this locks it, so two writers
            # appending to one conversation take turns and its ids stay in commit order
            # (and its counts, read here, are the ones the new event follows).
            row = queries.BUMP_CONVERSATION.run(db, when, conv_id).fetchone()
            if row is None:
                raise NotFoundError(f"Conversation not found: {conv_id}")
            before = tally.Tally(int(row[0]), int(row[1]))
            now = tally.after(before, event, counts.tally_lookup(db, conv_id))
            cursor = queries.INSERT_EVENT.run(
                db, conv_id, kind, text, raw, when, now.messages, now.context
            )
            event.id = int(cursor.fetchone()[0])
            if now != before:
                queries.SET_COUNTS.run(db, now.messages, now.context, conv_id)
            self.dialect.index_event(db, event.id, kind, text, streaming(data))
            attachments = listed(data) if data and "attachments" in data else []
            if files:
                files_sql.put(db, files, when)
            if attachments:
                files_sql.link(db, self.dialect, event.id, attachments)
        return event

    def update_event(self, event_id: int, content: str, data: dict[str, Any] | None) -> None:
        worker = self._worker
        if worker is not None and streaming(data) and not worker.current and not self._closed:
            # A growing reply's save: crash insurance that its final save overwrites;
            # the newest one waiting replaces the others. One that failed is said by
            # the next (so the session keeps the text and says it is not saved yet).
            failed, self._behind_failed = self._behind_failed, None
            if failed is not None:
                raise failed
            if self.read_only is None:
                saved = worker.submit(
                    self._update, event_id, content, data, key=("update", event_id)
                )
                saved.add_done_callback(self._saved_behind)
                return
        self._update(event_id, content, data)

    def _saved_behind(self, saved: Future[None]) -> None:
        if not saved.cancelled() and saved.exception() is not None:
            self._behind_failed = saved.exception()

    def _update(self, event_id: int, content: str, data: dict[str, Any] | None) -> None:
        raw = json.dumps(data, ensure_ascii=False) if data else None
        text = content or ""
        with self._writing() as db:
            query = EventRow.select(
                EventRow.kind, EventRow.content, EventRow.conversation, EventRow.data
            ).where(EventRow.id == event_id)
            row = execute_query(db, query).fetchone()
            if row is None:
                raise NotFoundError(f"Event not found: {event_id}")
            kind, old, conv_id, old_raw = row
            step = tally.grown(kind, old, text)
            if step:  # a reply's first text arrived
                queries.GROW_COUNTS.run(db, step, step, conv_id)
                queries.GROW_TALLIES.run(db, step, step, conv_id, event_id)
            self.dialect.unindex_event(db, event_id, kind, old, streaming_raw(old_raw))
            EventRow.update(content=text, data=raw).where(EventRow.id == event_id).execute(db)
            self.dialect.index_event(db, event_id, kind, text, streaming(data))
        self._behind_failed = None  # a later text is saved: an earlier failure is moot

    def get_event(self, event_id: int) -> Event | None:
        with self._reading() as db:
            row = queries.EVENT_BY_ID.run(db, event_id).fetchone()
        return event_from_row(row) if row else None

    def last_event_id(self, conv_id: str) -> int | None:
        with self._reading() as db:
            row = queries.LAST_EVENT_ID.run(db, conv_id).fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def tail_stamp(self, conv_id: str, limit: int) -> list[tuple[int, int, int]]:
        if limit <= 0:
            return []
        with self._reading() as db:
            rows = queries.TAIL_STAMP.run(db, conv_id, limit).fetchall()
        return [(int(i), int(text), int(data)) for i, text, data in rows]

    def latest_clear(self, conv_id: str, upto: int | None) -> int | None:
        with self._reading() as db:
            return counts.latest_clear(db, conv_id, upto)

    def events(
        self, conv_id: str, after: int | None = None, upto: int | None = None
    ) -> list[Event]:
        with self._reading() as db:
            rows = _read_log(db, conv_id, after, upto, None)
        return _log(conv_id, rows)

    def tail_events(self, conv_id: str, limit: int) -> list[Event]:
        if limit <= 0:
            return []
        with self._reading() as db:
            rows = _read_log(db, conv_id, None, None, limit)
        rows.reverse()
        return _log(conv_id, rows)

    def count_shown(self, conv_id: str, after: int, upto: int) -> int:
        with self._reading() as db:
            return counts.count_shown(db, conv_id, after, upto)

    def context_counts(self, conv_ids: Sequence[str]) -> dict[str, int]:
        with self._reading() as db:
            return counts.context_counts(db, conv_ids)

    def inherited_counts(self, conv_ids: Sequence[str]) -> dict[str, int]:
        with self._reading() as db:
            return counts.inherited_counts(db, conv_ids)

    def unfinished_replies(self) -> list[Event]:
        maybe = self.dialect.maybe_streaming()

        # 'assistant' written out, like ``maybe``: the partial index names both.
        where = (EventRow.kind == SQL("'assistant'")) & maybe
        query = EventRow.select(*EVENT_FIELDS).where(where).order_by(EventRow.id)
        with self._reading() as db:
            rows = execute_query(db, query).fetchall()
        events = [event_from_row(r) for r in rows]
        return [e for e in events if e.data.get("streaming") is True]

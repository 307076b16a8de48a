"""Counting without reading (issue 10 item 1): the items a cleared group holds; and the
counts the domain computes as events are appended (:mod:`ikgui.domain.state.tally`), stored
with each event and conversation and only looked up and summed here (issue 22 item 2:
no rule of the fold is written again in SQL)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from peewee import Database

from ikgui.domain.state import tally
from ikgui.storage import queries

#: Ids per ``IN (...)`` list.
_CHUNK = 500


def _scalar(cursor: Any) -> Any:
    row = cursor.fetchone()
    return row[0] if row else None


def _failed(raw: str | None) -> bool:
    """Whether a reply's data says it failed (``reading.failed_before_text``)."""
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        return False
    value = data.get("failed") if isinstance(data, dict) else None
    return isinstance(value, (bool, int, float)) and bool(value)


def count_shown(db: Database, conv_id: str, after: int, upto: int) -> int:
    """See ``Store.count_shown``: the events a reader sees, less the replies that failed
    before any text (few: read and checked here, the same on both databases)."""
    total = int(_scalar(queries.COUNT_SHOWN.run(db, conv_id, after, upto)) or 0)
    empty = queries.EMPTY_REPLIES.run(db, conv_id, after, upto).fetchall()
    return total - sum(1 for (raw,) in empty if _failed(raw))


def latest_clear(db: Database, conv_id: str, upto: int | None = None) -> int | None:
    if upto is None:
        value = _scalar(queries.LATEST_CLEAR.run(db, conv_id))
    else:
        value = _scalar(queries.LATEST_CLEAR_UPTO.run(db, conv_id, upto))
    return int(value) if value is not None else None


def tally_lookup(db: Database, conv_id: str) -> tally.Lookup:
    """Read an earlier event's stored tally for :func:`ikgui.domain.state.tally.after`."""

    def lookup(event_id: int) -> tuple[str, tally.Tally] | None:
        row = queries.EVENT_TALLY.run(db, event_id, conv_id).fetchone()
        return (row[0], tally.Tally(int(row[1]), int(row[2]))) if row else None

    return lookup


def _stored(
    db: Database, query: Callable[[int], queries.Query], conv_ids: Sequence[str]
) -> dict[str, int]:
    found: dict[str, int] = {}
    for chunk in queries.chunks(list(dict.fromkeys(conv_ids)), _CHUNK):
        rows = query(len(chunk)).run(db, *chunk).fetchall()
        found.update((conv_id, int(count)) for conv_id, count in rows)
    return {conv_id: found.get(conv_id, 0) for conv_id in dict.fromkeys(conv_ids)}


def context_counts(db: Database, conv_ids: Sequence[str]) -> dict[str, int]:
    """See ``Store.context_counts``: stored when events are appended."""
    return _stored(db, queries.context_counts_of, conv_ids)


def inherited_counts(db: Database, conv_ids: Sequence[str]) -> dict[str, int]:
    """See ``Store.inherited_counts``: stored when a fork is made (or its family changes)."""
    return _stored(db, queries.inherited_counts_of, conv_ids)


class _Walk:
    """The lookups of one :func:`carry` call, each made once: forks of one family share
    their ancestors (and usually their fork points)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.forks: dict[str, tuple[str | None, int | None]] = {}
        self.messages: dict[tuple[str, int], int] = {}

    def fork_of(self, conv_id: str) -> tuple[str | None, int | None]:
        found = self.forks.get(conv_id)
        if found is None:
            row = queries.FORK_OF.run(self.db, conv_id).fetchone()
            found = self.forks[conv_id] = (row[0], row[1]) if row is not None else (None, None)
        return found

    def messages_upto(self, conv_id: str, upto: int) -> int:
        key = (conv_id, upto)
        if key not in self.messages:
            row = queries.MESSAGES_UPTO.run(self.db, conv_id, upto).fetchone()
            self.messages[key] = int(row[0]) if row else 0
        return self.messages[key]


def carry(db: Database, conv_ids: Sequence[str]) -> None:
    """Store what each of ``conv_ids`` carries from its ancestors (the domain's
    :func:`ikgui.domain.state.tally.carried`, summing stored tallies)."""
    walk = _Walk(db)
    for conv_id in dict.fromkeys(conv_ids):
        count = tally.carried(conv_id, walk.fork_of, walk.messages_upto)
        queries.SET_INHERITED.run(db, count, conv_id)


def family(db: Database, roots: Sequence[str]) -> list[str]:
    """``roots`` and all their forks, forks of forks and so on (parents first)."""
    found = list(dict.fromkeys(roots))
    seen = set(found)
    layer = found
    while layer:
        below: list[str] = []
        for chunk in queries.chunks(layer, _CHUNK):
            rows = queries.children_ids(len(chunk)).run(db, *chunk).fetchall()
            below.extend(r[0] for r in rows if r[0] not in seen)
        seen.update(below)
        found.extend(below)
        layer = below
    return found

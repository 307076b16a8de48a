"""Counting without reading (issue 10 item 1): the items a cleared group holds, and the
messages of a conversation still in its context (SQL of :mod:`ikgui.storage.queries`,
the same on either database)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from peewee import Database

from ikgui.storage import queries


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


def _cuts(rows: Sequence[Any]) -> list[tuple[int, int]]:
    """The id ranges rewinds and retries took out of the context (``(target, self)``,
    both excluded), merged."""
    ranges: list[tuple[int, int]] = []
    for event_id, raw in rows:
        try:
            target = json.loads(raw).get("target_event_id") if raw else None
        except (ValueError, AttributeError):
            target = None
        if isinstance(target, int) and not isinstance(target, bool) and target < event_id:
            ranges.append((target, event_id))
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def latest_clear(db: Database, conv_id: str, upto: int | None = None) -> int | None:
    if upto is None:
        value = _scalar(queries.LATEST_CLEAR.run(db, conv_id))
    else:
        value = _scalar(queries.LATEST_CLEAR_UPTO.run(db, conv_id, upto))
    return int(value) if value is not None else None


def _messages(db: Database, conv_id: str, after: int, upto: int) -> int:
    return int(_scalar(queries.COUNT_MESSAGES.run(db, conv_id, after, upto)) or 0)


def context_count(db: Database, conv_id: str) -> int:
    """One conversation's own messages in its context: after its newest clear, minus
    the ranges its rewinds and retries cut (each an index range scan; a NOT EXISTS per
    message took seconds on 10,000 events)."""
    clear = latest_clear(db, conv_id) or 0
    cuts = _cuts(queries.CUT_MARKS.run(db, conv_id, clear).fetchall())
    if not clear and not cuts:  # the common case: all of them
        return int(_scalar(queries.MESSAGE_COUNT.run(db, conv_id)) or 0)
    total = _messages(db, conv_id, clear, queries.MAX_ID)
    for low, high in cuts:
        total -= _messages(db, conv_id, low, high - 1)
    return total


def context_counts(db: Database, conv_ids: Sequence[str]) -> dict[str, int]:
    """See ``Store.context_counts``."""
    return {conv_id: context_count(db, conv_id) for conv_id in dict.fromkeys(conv_ids)}


class _Walk:
    """The lookups of one ``inherited_counts`` call, each made once: forks of one family
    share their ancestors (and usually their fork points), so a 50-deep chain costs ~100
    statements, not ~2,500 (each a round trip on PostgreSQL)."""

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
            self.messages[key] = _messages(self.db, conv_id, 0, upto)
        return self.messages[key]


def inherited_count(db: Database, conv_id: str, walk: _Walk | None = None) -> int:
    """The messages a fork carries from its ancestors: each ancestor's own messages up to
    the fork point (the lowest point on the way up), as its message count counts them."""
    walk = walk or _Walk(db)
    parent, upto = walk.fork_of(conv_id)
    total, seen = 0, {conv_id}
    while parent is not None and upto is not None and parent not in seen:
        seen.add(parent)
        total += walk.messages_upto(parent, upto)
        grand, fork = walk.fork_of(parent)
        parent, upto = grand, min(upto if fork is None else fork, upto)
    return total


def inherited_counts(db: Database, conv_ids: Sequence[str]) -> dict[str, int]:
    """See ``Store.inherited_counts``."""
    walk = _Walk(db)
    return {conv_id: inherited_count(db, conv_id, walk) for conv_id in dict.fromkeys(conv_ids)}

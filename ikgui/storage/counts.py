"""Counting without reading (issue 10 item 1): the items a cleared group holds, and the
messages of a conversation still in its context, built with peewee on either database."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from peewee import Database, fn

from ikgui.storage.models import ConversationRow, EventRow
from ikgui.storage.prepared import Prepared, literal

_MAX_ID = 2**63 - 1


def _range(conv_id: Any, after: Any, upto: Any) -> Any:
    return (EventRow.conversation == conv_id) & (EventRow.id > after) & (EventRow.id <= upto)


_COUNT = fn.COUNT(EventRow.id)
#: A conversation's own messages (the message count's rule) with ``after < id <= upto``.
_MESSAGES = Prepared(
    lambda conv_id, after, upto: EventRow.select(_COUNT).where(
        _range(conv_id, after, upto)
        & (
            (EventRow.kind == literal("user"))
            | ((EventRow.kind == literal("assistant")) & (EventRow.content != literal("")))
        )
    ),
    str,
    int,
    int,
)
_SHOWN = Prepared(
    lambda conv_id, after, upto: EventRow.select(_COUNT).where(
        _range(conv_id, after, upto) & EventRow.kind.not_in([literal("clear"), literal("retry")])
    ),
    str,
    int,
    int,
)
_EMPTY_REPLIES = Prepared(
    lambda conv_id, after, upto: EventRow.select(EventRow.data).where(
        _range(conv_id, after, upto)
        & (EventRow.kind == literal("assistant"))
        & (EventRow.content == literal(""))
    ),
    str,
    int,
    int,
)
_IS_CLEAR = EventRow.kind == literal("clear")
_LATEST_CLEAR = Prepared(
    lambda conv_id: EventRow.select(fn.MAX(EventRow.id)).where(
        (EventRow.conversation == conv_id) & _IS_CLEAR
    ),
    str,
)
_LATEST_CLEAR_UPTO = Prepared(
    lambda conv_id, upto: EventRow.select(fn.MAX(EventRow.id)).where(
        (EventRow.conversation == conv_id) & _IS_CLEAR & (EventRow.id <= upto)
    ),
    str,
    int,
)
_CUT_MARKS = Prepared(
    lambda conv_id, after: EventRow.select(EventRow.id, EventRow.data).where(
        (EventRow.conversation == conv_id)
        & (EventRow.id > after)
        & EventRow.kind.in_([literal("rewind"), literal("retry")])
    ),
    str,
    int,
)
_MESSAGE_COUNT = Prepared(
    lambda conv_id: ConversationRow.select(ConversationRow.message_count).where(
        ConversationRow.id == conv_id
    ),
    str,
)
_FORK_OF = Prepared(
    lambda conv_id: ConversationRow.select(
        ConversationRow.parent, ConversationRow.fork_event_id
    ).where(ConversationRow.id == conv_id),
    str,
)


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
    total = int(_scalar(_SHOWN(db, conv_id, after, upto)) or 0)
    empty = _EMPTY_REPLIES(db, conv_id, after, upto).fetchall()
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
        value = _scalar(_LATEST_CLEAR(db, conv_id))
    else:
        value = _scalar(_LATEST_CLEAR_UPTO(db, conv_id, upto))
    return int(value) if value is not None else None


def _messages(db: Database, conv_id: str, after: int, upto: int) -> int:
    return int(_scalar(_MESSAGES(db, conv_id, after, upto)) or 0)


def context_count(db: Database, conv_id: str) -> int:
    """One conversation's own messages in its context: after its newest clear, minus
    the ranges its rewinds and retries cut (each an index range scan; a NOT EXISTS per
    message took seconds on 10,000 events)."""
    clear = latest_clear(db, conv_id) or 0
    cuts = _cuts(_CUT_MARKS(db, conv_id, clear).fetchall())
    if not clear and not cuts:  # the common case: all of them
        return int(_scalar(_MESSAGE_COUNT(db, conv_id)) or 0)
    total = _messages(db, conv_id, clear, _MAX_ID)
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
            row = _FORK_OF(self.db, conv_id).fetchone()
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

"""Counting without reading (issue 10 item 1): the items a cleared group holds, and the
messages of a conversation still in its context, on an open SQLite connection."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any, cast

#: A reply that failed before any text (``reading.failed_before_text``): no reader sees it.
_FAILED_SQL = (
    "kind = 'assistant' AND content = '' AND "
    "coalesce(CASE WHEN json_valid(data) THEN json_extract(data, '$.failed') END, 0)"
)
#: A conversation's own messages (the message count's rule) with ``? < id <= ?``.
_MESSAGES_SQL = (
    "SELECT count(*) FROM event WHERE conversation_id = ? AND id > ? AND id <= ? "
    "AND (kind = 'user' OR (kind = 'assistant' AND content != ''))"
)


def count_shown(conn: sqlite3.Connection, conv_id: str, after: int, upto: int) -> int:
    """See ``Store.count_shown``."""
    row = conn.execute(
        "SELECT count(*) FROM event WHERE conversation_id = ? AND id > ? AND id <= ? "
        f"AND kind NOT IN ('clear', 'retry') AND NOT ({_FAILED_SQL})",
        (conv_id, after, upto),
    ).fetchone()
    return cast(int, row[0])


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


def context_count(conn: sqlite3.Connection, conv_id: str) -> int:
    """One conversation's own messages in its context: after its newest clear, minus
    the ranges its rewinds and retries cut (each an index range scan; a NOT EXISTS per
    message took seconds on 10,000 events)."""
    row = conn.execute(
        "SELECT max(id) FROM event WHERE conversation_id = ? AND kind = 'clear'", (conv_id,)
    ).fetchone()
    clear = row[0] or 0
    rows = conn.execute(
        "SELECT id, data FROM event WHERE conversation_id = ? AND id > ? "
        "AND kind IN ('rewind', 'retry')",
        (conv_id, clear),
    ).fetchall()
    cuts = _cuts(rows)
    if not clear and not cuts:  # the common case: all of them
        row = conn.execute(
            "SELECT message_count FROM conversation WHERE id = ?", (conv_id,)
        ).fetchone()
        return cast(int, row[0]) if row else 0
    total = cast(int, conn.execute(_MESSAGES_SQL, (conv_id, clear, 2**63 - 1)).fetchone()[0])
    for low, high in cuts:
        total -= cast(int, conn.execute(_MESSAGES_SQL, (conv_id, low, high - 1)).fetchone()[0])
    return total


def context_counts(conn: sqlite3.Connection, conv_ids: Sequence[str]) -> dict[str, int]:
    """See ``Store.context_counts``."""
    return {conv_id: context_count(conn, conv_id) for conv_id in dict.fromkeys(conv_ids)}


def inherited_count(conn: sqlite3.Connection, conv_id: str) -> int:
    """The messages a fork carries from its ancestors: each ancestor's own messages up to
    the fork point (the lowest point on the way up), as its message count counts them."""
    row = conn.execute(
        "SELECT parent_id, fork_event_id FROM conversation WHERE id = ?", (conv_id,)
    ).fetchone()
    total, seen = 0, {conv_id}
    while row is not None and row[0] is not None and row[1] is not None and row[0] not in seen:
        parent, upto = row[0], row[1]
        seen.add(parent)
        total += cast(int, conn.execute(_MESSAGES_SQL, (parent, 0, upto)).fetchone()[0])
        row = conn.execute(
            "SELECT parent_id, min(coalesce(fork_event_id, ?), ?) FROM conversation WHERE id = ?",
            (upto, upto, parent),
        ).fetchone()
    return total


def inherited_counts(conn: sqlite3.Connection, conv_ids: Sequence[str]) -> dict[str, int]:
    """See ``Store.inherited_counts``."""
    return {conv_id: inherited_count(conn, conv_id) for conv_id in dict.fromkeys(conv_ids)}

"""Tags across conversations: the match-all filter, counts, rename (merge) and delete.

Each function runs inside the store's read or write transaction (it is given the
connection), so a rename or delete of a tag on thousands of conversations is one
transaction: every conversation changes, or none. Tags arrive normalized (the domain's
one tag rule, :func:`ikgui.domain.ids.normalize_tag`); the ``tag_name`` index makes each
statement a lookup, not a scan.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

#: A ``WHERE`` term: conversation ``c`` has the tag bound to ``?``.
HAS_TAG = "EXISTS (SELECT 1 FROM tag t WHERE t.conversation_id = c.id AND t.name = ?)"


def wanted(tag: str | None, tags: Sequence[str]) -> list[str]:
    """The tags a listing must all have (``tag`` and ``tags`` together), lowercased."""
    names = ([tag] if tag is not None else []) + list(tags)
    return sorted({t.strip().lower() for t in names})


def counts(
    conn: sqlite3.Connection, within: Sequence[str], trashed: bool | None
) -> list[tuple[str, int]]:
    """Each tag with the number of conversations carrying it, among those that have every
    tag of ``within`` and are in the Trash (``True``), not (``False``) or either (``None``)."""
    where: list[str] = []
    if trashed is not None:
        where.append("c.trashed_at IS NOT NULL" if trashed else "c.trashed_at IS NULL")
    params: list[Any] = []
    for name in wanted(None, within):
        where.append(HAS_TAG)
        params.append(name)
    sql = "SELECT g.name, count(*) FROM tag g JOIN conversation c ON c.id = g.conversation_id"
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = conn.execute(sql + " GROUP BY g.name ORDER BY g.name", params).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


def rename(conn: sqlite3.Connection, old: str, new: str) -> int:
    """Give every conversation tagged ``old`` the tag ``new`` instead (a merge when ``new``
    is in use: a conversation with both keeps one). Returns how many had ``old``."""
    (count,) = conn.execute("SELECT count(*) FROM tag WHERE name = ?", (old,)).fetchone()
    if old == new or not count:
        return int(count)
    conn.execute(
        "DELETE FROM tag WHERE name = ? AND conversation_id IN "
        "(SELECT conversation_id FROM tag WHERE name = ?)",
        (old, new),
    )
    conn.execute("UPDATE tag SET name = ? WHERE name = ?", (new, old))
    return int(count)


def delete(conn: sqlite3.Connection, name: str) -> int:
    """Remove the tag ``name`` from every conversation; returns how many had it."""
    return int(conn.execute("DELETE FROM tag WHERE name = ?", (name,)).rowcount)

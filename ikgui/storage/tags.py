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


def wanted(tag: str | None, tags: Sequence[str]) -> list[str]:
    """The tags a listing must all have (``tag`` and ``tags`` together), lowercased."""
    names = ([tag] if tag is not None else []) + list(tags)
    return sorted({t.strip().lower() for t in names})


def having_all(names: Sequence[str]) -> str:
    """A ``WHERE`` term: conversation ``c`` has every one of ``len(names)`` tags (bound to
    ``?`` in order). The ids come from the ``tag_name`` index (an intersection), so a
    filter costs what its tags' rows cost, not a scan of every conversation."""
    picks = " INTERSECT ".join(["SELECT conversation_id FROM tag WHERE name = ?"] * len(names))
    return f"c.id IN ({picks})"


_TRASHED = "SELECT id FROM conversation WHERE trashed_at IS NOT NULL"


def counts(
    conn: sqlite3.Connection, within: Sequence[str], trashed: bool | None
) -> list[tuple[str, int]]:
    """Each tag with the number of conversations carrying it, among those that have every
    tag of ``within`` and are in the Trash (``True``), not (``False``) or either (``None``)."""
    names = wanted(None, within)
    if names:
        where = [having_all(names)]
        if trashed is not None:
            where.append("c.trashed_at IS NOT NULL" if trashed else "c.trashed_at IS NULL")
        scope = f"SELECT c.id FROM conversation c WHERE {' AND '.join(where)}"
        return _grouped(conn, f"WHERE conversation_id IN ({scope})", names)
    # Without a filter: every tag row (the covering index), less those in the Trash (few).
    everything = _grouped(conn, "", [])
    if trashed is None:
        return everything
    gone = _grouped(conn, f"WHERE conversation_id IN ({_TRASHED})", [])
    if trashed:
        return gone
    minus = dict(gone)
    left = [(t, n - minus.get(t, 0)) for t, n in everything]
    return [(t, n) for t, n in left if n > 0]


def _grouped(conn: sqlite3.Connection, where: str, params: list[Any]) -> list[tuple[str, int]]:
    sql = f"SELECT name, count(*) FROM tag {where} GROUP BY name ORDER BY name"
    return [(str(r[0]), int(r[1])) for r in conn.execute(sql, params).fetchall()]


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

"""Full-text search over message text and titles (FTS5), with user text taken as plain words.

Messages live in ``event_fts``, an external-content index over the ``event_text`` view
(the searchable kinds of ``event``, so the text is stored once); titles in ``title_fts``.
A query is the user's words, each quoted and ANDed (within one message or the title),
so ``"``, ``*``, ``NEAR``, ``-`` or ``:`` are only ever words. Only the newest
``SCAN_LIMIT`` matching messages are considered, so a search stays fast however common
its words are; conversations rank by where they match (title and messages, title only,
messages only), then by how many of their messages match, then newest first.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ikgui.domain.events import SearchHit
from ikgui.storage.migrations import FTS_CHARS, INDEXED_KINDS
from ikgui.storage.models import CONVERSATION_COLUMNS, conversation_from_row

_INDEXED = frozenset(INDEXED_KINDS)
_KIND_LIST = ", ".join(f"'{k}'" for k in INDEXED_KINDS)
_WORD = re.compile(r"\w+")
MAX_WORDS = 16
SCAN_LIMIT = 2000
SNIPPET_WIDTH = 80


def words_of(text: str) -> list[str]:
    """The searchable words of ``text`` (at most ``MAX_WORDS``)."""
    return [w for w in _WORD.findall(text) if any(ch.isalnum() for ch in w)][:MAX_WORDS]


def match_expression(words: Iterable[str]) -> str:
    """An FTS5 query matching rows that contain every word (each a quoted string)."""
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


# -- index maintenance (called inside the store's write transactions) -------------


def indexed(kind: str, content: str, streaming: bool) -> str:
    """What the index holds of an event (as the ``event_text`` view gives it): the first
    ``FTS_CHARS`` characters of a searchable kind's text, nothing while it streams."""
    if streaming or kind not in _INDEXED:
        return ""
    return content[:FTS_CHARS]


def index_event(
    conn: sqlite3.Connection, event_id: int, kind: str, content: str, streaming: bool = False
) -> None:
    text = indexed(kind, content, streaming)
    if text:
        conn.execute("INSERT INTO event_fts (rowid, content) VALUES (?, ?)", (event_id, text))


def unindex_event(
    conn: sqlite3.Connection, event_id: int, kind: str, content: str, streaming: bool = False
) -> None:
    # External content: the 'delete' command needs exactly the text that was indexed.
    text = indexed(kind, content, streaming)
    if text:
        conn.execute(
            "INSERT INTO event_fts (event_fts, rowid, content) VALUES ('delete', ?, ?)",
            (event_id, text),
        )


def unindex_conversations(conn: sqlite3.Connection, id_table: str) -> None:
    """Drop the index entries of every event and title of the ids in ``id_table``."""
    conn.execute(
        "INSERT INTO event_fts (event_fts, rowid, content) "
        "SELECT 'delete', id, content FROM event_text WHERE id IN (SELECT id FROM event "
        f"WHERE conversation_id IN (SELECT id FROM {id_table}) AND kind IN ({_KIND_LIST}))"
    )
    conn.execute(f"DELETE FROM title_fts WHERE conversation_id IN (SELECT id FROM {id_table})")


def set_title(conn: sqlite3.Connection, conv_id: str, title: str | None, *, new: bool) -> None:
    if not new:
        conn.execute("DELETE FROM title_fts WHERE conversation_id = ?", (conv_id,))
    if title:
        conn.execute(
            "INSERT INTO title_fts (title, conversation_id) VALUES (?, ?)", (title, conv_id)
        )


def rebuild(conn: sqlite3.Connection) -> None:
    """Rebuild both indexes from the tables (bulk loads, repairs), then merge them."""
    conn.execute("INSERT INTO event_fts (event_fts) VALUES ('rebuild')")
    conn.execute("DELETE FROM title_fts")
    conn.execute(
        "INSERT INTO title_fts (title, conversation_id) "
        "SELECT title, id FROM conversation WHERE title IS NOT NULL AND title != ''"
    )
    conn.execute("INSERT INTO event_fts (event_fts) VALUES ('optimize')")


# -- querying ---------------------------------------------------------------------


@dataclass
class Candidate:
    conversation_id: str
    event_id: int | None = None  # the newest matching message
    matches: int = 0  # matching messages among the newest SCAN_LIMIT matches
    title: bool = False
    updated_at: float = 0.0

    def rank(self) -> tuple[int, int, int, float, str]:
        """Sort key, best first: title and message, title only, message only; then the
        number of matching messages; then the newest."""
        tier = (2 if self.title else 0) + (1 if self.event_id is not None else 0)
        newest = self.event_id or 0
        return (-tier, -self.matches, -newest, -self.updated_at, self.conversation_id)


def find(conn: sqlite3.Connection, words: list[str], limit: int) -> list[Candidate]:
    """The best ``limit`` conversations (not in the Trash) matching all ``words``."""
    query = match_expression(words)
    found: dict[str, Candidate] = {}
    # Newest first, so the first match seen per conversation is its newest one. No bm25:
    # its IDF statistics cost a pass over each word's whole posting list.
    rows = conn.execute(
        "SELECT e.conversation_id, event_fts.rowid FROM event_fts "
        "CROSS JOIN event e ON e.id = event_fts.rowid "
        "CROSS JOIN conversation c ON c.id = e.conversation_id "
        "WHERE event_fts MATCH ? AND c.trashed_at IS NULL "
        "ORDER BY event_fts.rowid DESC LIMIT ?",
        (query, SCAN_LIMIT),
    )
    for conv_id, event_id in rows:
        hit = found.get(conv_id)
        if hit is None:
            hit = found[conv_id] = Candidate(conv_id, event_id)
        hit.matches += 1
    titles = conn.execute(
        "SELECT t.conversation_id, c.updated_at FROM title_fts t "
        "CROSS JOIN conversation c ON c.id = t.conversation_id "
        "WHERE title_fts MATCH ? AND c.trashed_at IS NULL",
        (query,),
    )
    for conv_id, updated_at in titles:
        hit = found.setdefault(conv_id, Candidate(conv_id))
        hit.title = True
        hit.updated_at = updated_at
    return sorted(found.values(), key=Candidate.rank)[:limit]


def hits(conn: sqlite3.Connection, words: list[str], limit: int) -> list[SearchHit]:
    """``find`` as domain values, each with a snippet of its matching message or title."""
    found = find(conn, words, limit)
    if not found:
        return []
    ids = [f.conversation_id for f in found]
    rows = conn.execute(
        f"SELECT {CONVERSATION_COLUMNS} FROM conversation c WHERE c.id IN ({_marks(len(ids))})",
        ids,
    ).fetchall()
    event_ids = [f.event_id for f in found if f.event_id is not None]
    texts: dict[int, str] = dict(
        conn.execute(
            f"SELECT id, content FROM event WHERE id IN ({_marks(len(event_ids))})", event_ids
        ).fetchall()
    )
    convs = {r[0]: conversation_from_row(r) for r in rows}
    out = []
    for f in found:
        conv = convs.get(f.conversation_id)
        if conv is None:
            continue
        text = texts.get(f.event_id, "") if f.event_id is not None else conv.title or ""
        out.append(SearchHit(conv, f.event_id, snippet(text, words)))
    return out


def _marks(n: int) -> str:
    return ", ".join("?" * n)


def _fold(text: str) -> str:
    """Lowercase without diacritics, one output character per input character."""
    out = []
    for ch in text:
        base = unicodedata.normalize("NFKD", ch)[:1] or ch
        low = base.lower()
        out.append(low[0] if low else ch)
    return "".join(out)


def snippet(text: str, words: list[str], width: int = SNIPPET_WIDTH) -> str:
    """At most ``width`` characters of ``text`` around the first match, on one line."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    folded = _fold(flat)
    positions = []
    for word in words:
        m = re.search(r"(?<!\w)" + re.escape(_fold(word)), folded)
        if m:
            positions.append(m.start())
    pos = min(positions) if positions else 0
    start = max(0, min(pos - width // 3, len(flat) - width))
    # Start at a word boundary when that does not hide the match.
    if start > 0:
        space = flat.find(" ", start, pos)
        if space != -1:
            start = space + 1
    lead = "…" if start > 0 else ""
    room = width - len(lead)
    end = start + room
    if end < len(flat):
        end = start + room - 1
        cut = flat.rfind(" ", max(pos + 1, start), end)
        if cut > start:
            end = cut
        return lead + flat[start:end].rstrip() + "…"
    return lead + flat[start:end]

"""Full-text search over message text, the files messages list (their names and text,
SPEC §13) and titles, with user text taken as plain words.

The index and its query are the dialect's (FTS5 on SQLite, ``tsvector``/GIN on
PostgreSQL); what is shared is here: the words taken from the user's text (``\\w+``
runs, so quotes, ``*``, ``-``, ``:`` or ``|`` are never query syntax), the ranking and
the snippets. Only the newest ``SCAN_LIMIT`` matching messages are considered, so a
search stays fast however common its words are; conversations rank by where they match
(title and messages, title only, messages only), then by how many of their messages
match, then newest first.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from peewee import Database

from ikgui.domain.events import Conversation, SearchHit
from ikgui.storage.dialect import Dialect
from ikgui.storage.dialect_sqlite import match_expression as match_expression
from ikgui.storage.dialect_sqlite import rebuild as rebuild

_WORD = re.compile(r"\w+")
MAX_WORDS = 16
SCAN_LIMIT = 2000
SNIPPET_WIDTH = 80


def words_of(text: str) -> list[str]:
    """The searchable words of ``text`` (at most ``MAX_WORDS``)."""
    return [w for w in _WORD.findall(text) if any(ch.isalnum() for ch in w)][:MAX_WORDS]


# -- querying ---------------------------------------------------------------------


@dataclass
class Candidate:
    conversation_id: str
    event_id: int | None = None  # the newest matching message
    #: The file of that message that matched (``event_file`` id), when its text did not.
    file_id: int | None = None
    matches: int = 0  # matching messages among the newest SCAN_LIMIT matches
    title: bool = False
    updated_at: float = 0.0

    def rank(self) -> tuple[int, int, int, float, str]:
        """Sort key, best first: title and message, title only, message only; then the
        number of matching messages; then the newest."""
        tier = (2 if self.title else 0) + (1 if self.event_id is not None else 0)
        newest = self.event_id or 0
        return (-tier, -self.matches, -newest, -self.updated_at, self.conversation_id)


def find(dialect: Dialect, db: Database, words: list[str], limit: int) -> list[Candidate]:
    """The best ``limit`` conversations (not in the Trash) matching all ``words``."""
    found: dict[str, Candidate] = {}
    for conv_id, event_id, file_id in _matches(dialect, db, words):
        hit = found.get(conv_id)
        if hit is None:
            hit = found[conv_id] = Candidate(conv_id, event_id, file_id)
        hit.matches += 1
    for conv_id, updated_at in dialect.title_matches(db, words):
        hit = found.setdefault(conv_id, Candidate(conv_id))
        hit.title = True
        hit.updated_at = updated_at
    return sorted(found.values(), key=Candidate.rank)[:limit]


def _matches(dialect: Dialect, db: Database, words: list[str]) -> list[tuple[str, int, int | None]]:
    """The newest ``SCAN_LIMIT`` messages matching by their text or by a file they list
    (its name and text, SPEC §13), newest first, each once."""
    texts = dialect.event_matches(db, words, SCAN_LIMIT)
    files = dialect.file_matches(db, words, SCAN_LIMIT)
    if not files:
        return [(c, int(e), None) for c, e in texts]
    merged: dict[int, tuple[str, int, int | None]] = {}
    for conv_id, event_id in texts:
        merged[int(event_id)] = (conv_id, int(event_id), None)
    for conv_id, event_id, file_id in files:
        merged.setdefault(int(event_id), (conv_id, int(event_id), int(file_id)))
    return [merged[i] for i in sorted(merged, reverse=True)[:SCAN_LIMIT]]


def hits(
    dialect: Dialect,
    db: Database,
    words: list[str],
    limit: int,
    load: Callable[[Sequence[str]], dict[str, Conversation]],
) -> list[SearchHit]:
    """``find`` as domain values (``load`` reads conversations by id), each with a
    snippet of its matching message or title."""
    found = find(dialect, db, words, limit)
    if not found:
        return []
    convs = load([f.conversation_id for f in found])
    event_ids = [f.event_id for f in found if f.event_id is not None and f.file_id is None]
    texts = dialect.match_texts(db, words, event_ids)
    file_texts = dialect.file_texts(db, [f.file_id for f in found if f.file_id is not None])
    out = []
    for f in found:
        conv = convs.get(f.conversation_id)
        if conv is None:
            continue
        if f.file_id is not None:
            text = file_texts.get(f.file_id, "")
        elif f.event_id is not None:
            text = texts.get(f.event_id, "")
        else:
            text = conv.title or ""
        out.append(SearchHit(conv, f.event_id, snippet(text, words)))
    return out


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

"""``SqliteStore``: the domain's ``Store`` port on one SQLite file.

Read paths use raw cursors and build ``Event``/``Conversation`` values directly (event
data stays JSON text until read). Every write runs in a ``BEGIN IMMEDIATE`` transaction
(or a savepoint inside ``transaction()``), and every sqlite or peewee failure surfaces
as a ``StorageError`` in plain words; writes aimed at a missing conversation or event
raise ``NotFoundError``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, cast

from ikgui.domain.errors import NotFoundError
from ikgui.domain.events import MESSAGE_KINDS, Conversation, Event, SearchHit
from ikgui.storage import counts
from ikgui.storage import search as fts
from ikgui.storage import tags as tags_sql
from ikgui.storage.models import (
    CONVERSATION_COLUMNS,
    STATUSES,
    UPDATABLE,
    ConversationRow,
    TagRow,
    conversation_from_row,
    conversation_values,
    normalize_tags,
)
from ikgui.storage.sqlite_connection import SqliteConnection

_COUNTED = frozenset(k.value for k in MESSAGE_KINDS)
_EVENT_COLUMNS = "id, conversation_id, kind, content, data, created_at"


def _event(row: Sequence[Any]) -> Event:
    return Event(row[0], row[1], row[2], row[3], None, row[5], raw_data=row[4])


def _marks(n: int) -> str:
    return ", ".join("?" * n)


def _counts(kind: str, content: str) -> bool:
    """Whether an event counts as a message: a user message, or a reply with text (a
    reply row is created empty before its first delta, and one that fails stays so)."""
    return kind == "user" or (kind in _COUNTED and bool(content))


def _streaming(data: dict[str, Any] | None) -> bool:
    """A reply still streaming (as ``migrations.STREAMING_SQL`` tells it): not indexed
    until it is finished, so its periodic saves never re-index the growing text."""
    return bool(data) and data.get("streaming") is not None  # type: ignore[union-attr]


def _streaming_raw(raw: str | None) -> bool:
    if not raw:
        return False
    try:
        data = json.loads(raw)
    except ValueError:
        return False
    return isinstance(data, dict) and _streaming(data)


class SqliteStore(SqliteConnection):
    """The event log and conversation index in one SQLite file (see ``ikgui.domain.ports``)."""

    # -- conversations ---------------------------------------------------------------

    def conversation_exists(self, conv_id: str) -> bool:
        with self._reading() as conn:
            row = conn.execute("SELECT 1 FROM conversation WHERE id = ?", (conv_id,)).fetchone()
        return row is not None

    def insert_conversation(self, conv: Conversation) -> None:
        if conv.status not in STATUSES:
            raise ValueError(f"Unknown conversation status: {conv.status}")
        values = conversation_values(conv)
        tags = normalize_tags(conv.tags)
        with self._writing() as conn:
            conn.execute(
                f"INSERT INTO conversation ({', '.join(values)}) VALUES ({_marks(len(values))})",
                tuple(values.values()),
            )
            conn.executemany(
                "INSERT INTO tag (conversation_id, name) VALUES (?, ?)",
                [(conv.id, t) for t in tags],
            )
            fts.set_title(conn, conv.id, conv.title, new=True)

    def get_conversation(self, conv_id: str) -> Conversation | None:
        with self._reading() as conn:
            row = conn.execute(
                f"SELECT {CONVERSATION_COLUMNS} FROM conversation c WHERE c.id = ?", (conv_id,)
            ).fetchone()
        return conversation_from_row(row) if row else None

    def find_by_suffix(self, ref: str) -> list[str]:
        if not ref:
            return []
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT id FROM conversation WHERE substr(id, -?) = ? ORDER BY id",
                (len(ref), ref),
            ).fetchall()
        return [r[0] for r in rows]

    def update_conversation(self, conv_id: str, **changes: Any) -> None:
        unknown = sorted(set(changes) - UPDATABLE)
        if unknown:
            raise ValueError(f"Unknown conversation field: {', '.join(unknown)}")
        if "status" in changes and changes["status"] not in STATUSES:
            raise ValueError(f"Unknown conversation status: {changes['status']}")
        if not changes:
            return
        values: dict[Any, Any] = {}
        for name, value in changes.items():
            if name == "title_by_user":
                value = int(bool(value))
            elif name == "draft":
                value = value or ""
            values[getattr(ConversationRow, name)] = value
        with self._writing() as conn:
            query = ConversationRow.update(values).where(ConversationRow.id == conv_id)
            if not query.execute(self._db):
                raise NotFoundError(f"Conversation not found: {conv_id}")
            if "title" in changes:
                fts.set_title(conn, conv_id, changes["title"], new=False)

    def set_pinned(self, conv_ids: Sequence[str], pinned: bool) -> int:
        ids = list(dict.fromkeys(conv_ids))
        changed = 0
        with self._writing() as conn:
            for conv_id in ids:
                self._require(conv_id)
            for conv_id in ids:
                cursor = conn.execute(
                    "UPDATE conversation SET pinned = ? WHERE id = ? AND pinned != ?",
                    (int(pinned), conv_id, int(pinned)),
                )
                changed += cursor.rowcount
        return changed

    def set_tags(self, conv_id: str, tags: Sequence[str]) -> None:
        names = normalize_tags(tags)
        with self._writing():
            self._require(conv_id)
            TagRow.delete().where(TagRow.conversation == conv_id).execute(self._db)
            if names:
                rows = [{TagRow.conversation: conv_id, TagRow.name: n} for n in names]
                TagRow.insert_many(rows).execute(self._db)

    def add_usage(self, conv_id: str, input_tokens: int, output_tokens: int, cost: float) -> None:
        with self._writing():
            query = ConversationRow.update(
                {
                    ConversationRow.tokens_input: ConversationRow.tokens_input + input_tokens,
                    ConversationRow.tokens_output: ConversationRow.tokens_output + output_tokens,
                    ConversationRow.cost: ConversationRow.cost + cost,
                }
            ).where(ConversationRow.id == conv_id)
            if not query.execute(self._db):
                raise NotFoundError(f"Conversation not found: {conv_id}")

    def children(self, conv_id: str) -> list[Conversation]:
        return self._select("c.parent_id = ?", [conv_id], "c.created_at, c.id")

    def last_conversation(self, agent: str | None = None) -> Conversation | None:
        found = self.list_conversations(1, agent=agent)
        return found[0] if found else None

    def delete_conversations(self, conv_ids: Sequence[str]) -> None:
        """Remove rows for good. Forks left behind (not in ``conv_ids``) become roots."""
        ids = list(dict.fromkeys(conv_ids))
        if not ids:
            return
        with self._writing() as conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS doomed (id TEXT PRIMARY KEY)")
            conn.execute("DELETE FROM temp.doomed")
            conn.executemany(
                "INSERT OR IGNORE INTO temp.doomed (id) VALUES (?)", [(i,) for i in ids]
            )
            fts.unindex_conversations(conn, "temp.doomed")
            doomed = "(SELECT id FROM temp.doomed)"
            conn.execute(f"DELETE FROM tag WHERE conversation_id IN {doomed}")
            conn.execute(f"DELETE FROM event WHERE conversation_id IN {doomed}")
            conn.execute(
                "UPDATE conversation SET parent_id = NULL, fork_event_id = NULL "
                f"WHERE parent_id IN {doomed} AND id NOT IN {doomed}"
            )
            conn.execute(f"DELETE FROM conversation WHERE id IN {doomed}")
            conn.execute("DELETE FROM temp.doomed")

    def _require(self, conv_id: str) -> None:
        if not self.conversation_exists(conv_id):
            raise NotFoundError(f"Conversation not found: {conv_id}")

    # -- events ------------------------------------------------------------------------

    def append_event(
        self,
        conv_id: str,
        kind: str,
        content: str = "",
        data: dict[str, Any] | None = None,
        created_at: float | None = None,
    ) -> Event:
        when = time.time() if created_at is None else float(created_at)
        raw = json.dumps(data, ensure_ascii=False) if data else None
        text = content or ""
        with self._writing() as conn:
            bumped = conn.execute(
                "UPDATE conversation SET updated_at = ?, message_count = message_count + ? "
                "WHERE id = ?",
                (when, 1 if _counts(kind, text) else 0, conv_id),
            )
            if bumped.rowcount == 0:
                raise NotFoundError(f"Conversation not found: {conv_id}")
            cur = conn.execute(
                "INSERT INTO event (conversation_id, kind, content, data, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (conv_id, kind, text, raw, when),
            )
            event_id = cast(int, cur.lastrowid)
            fts.index_event(conn, event_id, kind, text, _streaming(data))
        return Event(
            event_id, conv_id, kind, text, dict(data) if data else None, when, raw_data=raw
        )

    def update_event(self, event_id: int, content: str, data: dict[str, Any] | None) -> None:
        raw = json.dumps(data, ensure_ascii=False) if data else None
        text = content or ""
        with self._writing() as conn:
            row = conn.execute(
                "SELECT kind, content, conversation_id, data FROM event WHERE id = ?",
                (event_id,),
            ).fetchone()
            if row is None:
                raise NotFoundError(f"Event not found: {event_id}")
            kind, old, conv_id, old_raw = row
            if _counts(kind, text) != _counts(kind, old):  # a reply's first text arrived
                conn.execute(
                    "UPDATE conversation SET message_count = message_count + ? WHERE id = ?",
                    (1 if _counts(kind, text) else -1, conv_id),
                )
            fts.unindex_event(conn, event_id, kind, old, _streaming_raw(old_raw))
            conn.execute(
                "UPDATE event SET content = ?, data = ? WHERE id = ?", (text, raw, event_id)
            )
            fts.index_event(conn, event_id, kind, text, _streaming(data))

    def get_event(self, event_id: int) -> Event | None:
        with self._reading() as conn:
            row = conn.execute(
                f"SELECT {_EVENT_COLUMNS} FROM event WHERE id = ?", (event_id,)
            ).fetchone()
        return _event(row) if row else None

    def last_event_id(self, conv_id: str) -> int | None:
        with self._reading() as conn:
            row = conn.execute(
                "SELECT max(id) FROM event WHERE conversation_id = ?", (conv_id,)
            ).fetchone()
        return cast(int | None, row[0])

    def latest_clear(self, conv_id: str, upto: int | None) -> int | None:
        sql = "SELECT max(id) FROM event WHERE conversation_id = ? AND kind = 'clear'"
        params: list[Any] = [conv_id]
        if upto is not None:
            sql += " AND id <= ?"
            params.append(upto)
        with self._reading() as conn:
            row = conn.execute(sql, params).fetchone()
        return cast(int | None, row[0])

    def events(
        self, conv_id: str, after: int | None = None, upto: int | None = None
    ) -> list[Event]:
        sql = "SELECT id, kind, content, data, created_at FROM event WHERE conversation_id = ?"
        params: list[Any] = [conv_id]
        if after is not None:
            sql += " AND id > ?"
            params.append(after)
        if upto is not None:
            sql += " AND id <= ?"
            params.append(upto)
        with self._reading() as conn:
            rows = conn.execute(sql + " ORDER BY id", params).fetchall()
        return [Event(i, conv_id, k, c, None, t, raw_data=d) for i, k, c, d, t in rows]

    def count_shown(self, conv_id: str, after: int, upto: int) -> int:
        with self._reading() as conn:
            return counts.count_shown(conn, conv_id, after, upto)

    def context_counts(self, conv_ids: Sequence[str]) -> dict[str, int]:
        with self._reading() as conn:
            return counts.context_counts(conn, conv_ids)

    def tail_events(self, conv_id: str, limit: int) -> list[Event]:
        if limit <= 0:
            return []
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT id, kind, content, data, created_at FROM event "
                "WHERE conversation_id = ? ORDER BY id DESC LIMIT ?",
                (conv_id, limit),
            ).fetchall()
        rows.reverse()
        return [Event(i, conv_id, k, c, None, t, raw_data=d) for i, k, c, d, t in rows]

    def inherited_counts(self, conv_ids: Sequence[str]) -> dict[str, int]:
        with self._reading() as conn:
            return counts.inherited_counts(conn, conv_ids)

    def unfinished_replies(self) -> list[Event]:
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {_EVENT_COLUMNS} FROM event "
                "WHERE kind = 'assistant' AND instr(data, '\"streaming\"') > 0 ORDER BY id"
            ).fetchall()
        events = [_event(r) for r in rows]
        return [e for e in events if e.data.get("streaming") is True]

    # -- read-only views -----------------------------------------------------------------

    def _select(
        self, where: str, params: list[Any], order: str, limit: int | None = None
    ) -> list[Conversation]:
        sql = f"SELECT {CONVERSATION_COLUMNS} FROM conversation c WHERE {where} ORDER BY {order}"
        if limit is not None:
            sql += " LIMIT ?"
            params = [*params, limit]
        with self._reading() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [conversation_from_row(r) for r in rows]

    def list_conversations(
        self,
        limit: int | None = None,
        *,
        agent: str | None = None,
        tag: str | None = None,
        trashed: bool = False,
        before: tuple[float, str] | None = None,
        tags: Sequence[str] = (),
        pinned: bool | None = None,
    ) -> list[Conversation]:
        if limit is not None and limit <= 0:
            return []
        where = ["c.trashed_at IS NOT NULL" if trashed else "c.trashed_at IS NULL"]
        if pinned is not None:
            where.append("c.pinned = 1" if pinned else "c.pinned = 0")
        params: list[Any] = []
        if agent is not None:
            where.append("c.agent = ?")
            params.append(agent)
        names = tags_sql.wanted(tag, tags)
        if names:
            where.append(tags_sql.having_all(names))
            params.extend(names)
        if before is not None:
            where.append("(c.updated_at, c.id) < (?, ?)")
            params.extend(before)
        return self._select(" AND ".join(where), params, "c.updated_at DESC, c.id DESC", limit)

    def search(self, words: str, limit: int = 50) -> list[SearchHit]:
        terms = fts.words_of(words)
        if not terms or limit <= 0:
            return []
        with self._reading() as conn:
            return fts.hits(conn, terms, limit)

    def all_tags(self) -> list[str]:
        with self._reading() as conn:
            rows = conn.execute("SELECT DISTINCT name FROM tag ORDER BY name").fetchall()
        return [r[0] for r in rows]

    # -- tags across conversations (the queries are ikgui.storage.tags) ----------------

    def tag_counts(
        self, within: Sequence[str] = (), *, trashed: bool | None = False
    ) -> list[tuple[str, int]]:
        with self._reading() as conn:
            return tags_sql.counts(conn, within, trashed)

    def rename_tag(self, old: str, new: str) -> int:
        with self._writing() as conn:
            return tags_sql.rename(conn, old, new)

    def delete_tag(self, name: str) -> int:
        with self._writing() as conn:
            return tags_sql.delete(conn, name)

"""The full-text index holds at most ``FTS_CHARS`` of one text and no reply while it
streams, so saving a huge or growing reply never re-indexes megabytes (issue 8, item 2);
the index stays consistent with its content through updates, deletes and migration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ikgui.storage import SCHEMA_VERSION, SqliteStore, open_store
from ikgui.storage.migrations import FTS_CHARS, MIGRATIONS
from tests.storage.helpers import add_conversation


def consistent(conn: sqlite3.Connection) -> None:
    """FTS5's own check that the index matches its content (raises if not)."""
    conn.execute("INSERT INTO event_fts (event_fts, rank) VALUES ('integrity-check', 1)")


def huge_text() -> str:
    filler = "lorem ipsum " * (FTS_CHARS // 12 + 10)
    return "aardvark " + filler + " zebrafinch"


def test_a_streaming_reply_is_indexed_once_it_is_finished(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    reply = store.append_event("chat-aaaa", "assistant", "", {"streaming": True, "owner": 1})
    store.update_event(reply.id, "growing okapi", {"streaming": True, "owner": 1})
    assert store.search("okapi") == []
    store.update_event(reply.id, "growing okapi, done", {"finish_reason": "stop"})
    assert [h.event_id for h in store.search("okapi")] == [reply.id]
    consistent(store._connection())


def test_a_huge_reply_is_searchable_by_its_beginning_only(
    store: SqliteStore,
) -> None:
    add_conversation(store, "chat-aaaa")
    text = huge_text()
    reply = store.append_event("chat-aaaa", "assistant", "", {"streaming": True})
    store.update_event(reply.id, text[: len(text) // 2], {"streaming": True})
    store.update_event(reply.id, text, {"finish_reason": "stop"})
    assert [h.event_id for h in store.search("aardvark")] == [reply.id]
    assert store.search("zebrafinch") == []  # past the indexed part
    assert store.get_event(reply.id).content == text  # type: ignore[union-attr]
    consistent(store._connection())
    store.delete_conversations(["chat-aaaa"])
    consistent(store._connection())
    assert store.search("aardvark") == []


def test_version_1_indexes_are_bounded_by_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "ikgui.db"
    with open_store(path, migrations=MIGRATIONS[:1]) as old:
        # Raw SQL: today's columns (e.g. v3's ``pinned``) are not in a version 1 table.
        old._connection().execute(
            "INSERT INTO conversation (id, created_at, updated_at) VALUES ('chat-aaaa', 1, 1)"
        )

        # (and events too: version 6's stored counts are not in a version 1 table)
        def add(kind: str, text: str, data: str | None) -> int:
            return int(
                old._connection()
                .execute(
                    "INSERT INTO event (conversation_id, kind, content, data, created_at)"
                    " VALUES ('chat-aaaa', ?, ?, ?, 1) RETURNING id",
                    (kind, text, data),
                )
                .fetchone()[0]
            )

        huge = add("assistant", huge_text(), None)
        growing = add("assistant", "half a quokka", '{"streaming": 1}')
        plain = add("user", "a plain wombat", None)
        # As version 1 indexed: every text whole, streaming or not (its view's content).
        old._connection().execute("INSERT INTO event_fts (event_fts) VALUES ('rebuild')")
        found = old._connection().execute(
            "SELECT rowid FROM event_fts WHERE event_fts MATCH 'zebrafinch'"
        )
        assert [r[0] for r in found] == [huge]  # v1: all of it
    with open_store(path) as new:
        conn = new._connection()
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        consistent(conn)
        assert new.search("zebrafinch") == [] and new.search("quokka") == []
        assert [h.event_id for h in new.search("aardvark")] == [huge]
        assert [h.event_id for h in new.search("wombat")] == [plain]
        new.update_event(growing, "half a quokka, now whole", {"interrupted": True})
        assert [h.event_id for h in new.search("quokka")] == [growing]
        consistent(conn)
    assert (tmp_path / "ikgui.db.bak-v1").exists()

"""Failing writes become plain StorageErrors without losing data; two stores share one file."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ikgui
from ikgui.domain.errors import StorageError
from ikgui.storage import SqliteStore, open_store

from .helpers import add_conversation


def _limit_pages(store: SqliteStore, extra: int) -> None:
    """Make the file "full" ``extra`` pages beyond its current size (this connection only)."""
    conn = store._connection()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + extra}")


def test_disk_full_is_a_storage_error_and_loses_nothing(db_path: Path) -> None:
    store = open_store(db_path)
    add_conversation(store, "chat-aaaa", title="Before")
    kept = [store.append_event("chat-aaaa", "user", f"kept {i}") for i in range(20)]
    _limit_pages(store, 2)
    big = "lorem ipsum dolor " * 2000
    with pytest.raises(StorageError) as info:
        for _ in range(20):
            store.append_event("chat-aaaa", "assistant", big)
    assert str(info.value) == (
        f"Could not write to the database {db_path}: "
        f"the disk is full: no room left in {db_path.parent}."
    )
    # Inside a transaction block, the whole block is undone.
    with pytest.raises(StorageError, match="the disk is full"), store.transaction():
        store.update_conversation("chat-aaaa", title="During")
        store.append_event("chat-aaaa", "assistant", big * 3)
    assert not store._connection().in_transaction
    # The store keeps working for reads, and for writes once there is room again.
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None and conv.title == "Before"
    store._connection().execute("PRAGMA max_page_count = 1073741823")
    later = store.append_event("chat-aaaa", "user", "after the disk was freed")
    store.close()
    with open_store(db_path) as again:
        events = again.events("chat-aaaa")
        assert [e.id for e in events if e.content.startswith("kept")] == [e.id for e in kept]
        assert events[-1] == later
        assert all(e.content != big for e in events[len(kept) : -1])
        conv = again.get_conversation("chat-aaaa")
        assert conv is not None and conv.title == "Before"
        assert conv.message_count == len(events)
        again._connection().execute(
            "INSERT INTO event_fts (event_fts, rank) VALUES ('integrity-check', 1)"
        )


def test_read_only_database_is_a_storage_error(store: SqliteStore, db_path: Path) -> None:
    add_conversation(store, "chat-aaaa")
    store._connection().execute("PRAGMA query_only = 1")
    with pytest.raises(StorageError) as info:
        store.append_event("chat-aaaa", "user", "x")
    assert str(info.value) == f"Could not write to the database {db_path}: the file is read-only."
    with pytest.raises(StorageError, match="read-only"):
        store.update_conversation("chat-aaaa", title="x")
    assert store.conversation_exists("chat-aaaa")


def test_locked_beyond_the_busy_timeout_is_a_storage_error(
    store: SqliteStore, db_path: Path
) -> None:
    add_conversation(store, "chat-aaaa")
    store._connection().execute("PRAGMA busy_timeout = 100")  # instead of 5 s, for the test
    other = sqlite3.connect(db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StorageError) as info:
            store.append_event("chat-aaaa", "user", "blocked")
        assert str(info.value) == (
            f"Could not write to the database {db_path}: another program kept it locked "
            "for more than 5 seconds."
        )
        assert store.conversation_exists("chat-aaaa")  # WAL: reads still work
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.append_event("chat-aaaa", "user", "now it works")


def test_duplicate_conversation_id_is_a_storage_error(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    with pytest.raises(StorageError, match="consistency check failed"):
        add_conversation(store, "chat-aaaa")


def test_two_stores_see_each_others_commits(db_path: Path) -> None:
    window = open_store(db_path)
    cli = open_store(db_path)
    try:
        version = window.data_version()
        add_conversation(cli, "chat-aaaa", title="from the cli")
        ev = cli.append_event("chat-aaaa", "user", "hello from the cli")
        assert window.data_version() != version
        assert window.get_conversation("chat-aaaa") is not None
        assert window.events("chat-aaaa") == [ev]
        window.append_event("chat-aaaa", "assistant", "hello from the window")
        assert [e.content for e in cli.events("chat-aaaa")] == [
            "hello from the cli",
            "hello from the window",
        ]
        assert [h.conversation.id for h in cli.search("window")] == ["chat-aaaa"]
    finally:
        window.close()
        cli.close()


def _run(script: str) -> subprocess.CompletedProcess[str]:
    root = str(Path(ikgui.__file__).resolve().parents[1])
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"},
        check=False,
    )


def test_a_killed_process_loses_nothing_it_committed(db_path: Path) -> None:
    done = _run(
        f"""
        import os
        from pathlib import Path
        from ikgui.domain.events import Conversation
        from ikgui.storage import open_store
        s = open_store(Path({str(db_path)!r}))
        s.insert_conversation(Conversation(id="chat-aaaa", created_at=1.0, updated_at=1.0))
        reply = s.append_event("chat-aaaa", "assistant", "partial", {{"streaming": True}})
        s.update_event(reply.id, "partial reply, grown", {{"streaming": True}})
        os._exit(9)  # no close, no checkpoint: the data is only in the WAL
        """
    )
    assert done.returncode == 9, done.stderr
    assert db_path.with_name("ikgui.db-wal").stat().st_size > 0
    with open_store(db_path) as s:
        [reply] = s.unfinished_replies()
        assert reply.content == "partial reply, grown"
        # A reply is indexed for search once it is no longer streaming (the start-up
        # recovery marks it interrupted), not at each periodic save.
        assert s.search("grown") == []
        s.update_event(reply.id, reply.content, {"interrupted": True})
        assert [h.event_id for h in s.search("grown")] == [reply.id]


def test_a_copy_with_its_wal_but_without_shm_opens(tmp_path: Path, store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    store.append_event("chat-aaaa", "user", "only in the WAL")
    copy = tmp_path / "copy" / "ikgui.db"
    copy.parent.mkdir()
    copy.write_bytes(store.path.read_bytes())
    wal = store.path.with_name("ikgui.db-wal")
    copy.with_name("ikgui.db-wal").write_bytes(wal.read_bytes())
    with open_store(copy) as s:
        assert [e.content for e in s.events("chat-aaaa")] == ["only in the WAL"]


def test_another_process_writes_while_the_store_is_open(store: SqliteStore, db_path: Path) -> None:
    add_conversation(store, "chat-aaaa")
    store.append_event("chat-aaaa", "user", "from the window")
    done = _run(
        f"""
        from pathlib import Path
        from ikgui.storage import open_store
        with open_store(Path({str(db_path)!r})) as s:
            s.append_event("chat-aaaa", "assistant", "from another process")
            s.update_conversation("chat-aaaa", title="Renamed elsewhere")
            print(len(s.events("chat-aaaa")))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"
    assert [e.content for e in store.events("chat-aaaa")] == [
        "from the window",
        "from another process",
    ]
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None and conv.title == "Renamed elsewhere" and conv.message_count == 2

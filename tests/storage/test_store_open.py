"""Opening databases: creation, pragmas, refusals that leave files untouched, migrations."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from ikgui.domain.errors import StorageError
from ikgui.storage import SCHEMA_VERSION, SqliteStore, open_store
from ikgui.storage.migrations import APPLICATION_ID, MIGRATIONS, Migration
from ikgui.storage.models import MODELS

from .helpers import add_conversation, file_hash


def _pragma(path: Path, name: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute(f"PRAGMA {name}").fetchone()[0])
    finally:
        conn.close()


def _schema(path: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name"
        ).fetchall()
    finally:
        conn.close()
    return [(t, n, " ".join(s.split())) for t, n, s in rows]


def _counting(calls: list[int], version: int, migration: Migration) -> Migration:
    def run(conn: sqlite3.Connection) -> None:
        calls.append(version)
        migration(conn)

    return run


def _side_files(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


# -- creating --------------------------------------------------------------------------


def test_creates_parent_folders_and_current_schema(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "ikgui.db"
    with open_store(path) as s:
        assert s.path == path
        assert s.list_conversations() == []
    assert _pragma(path, "user_version") == SCHEMA_VERSION
    assert _pragma(path, "application_id") == APPLICATION_ID


def test_reopen_is_a_no_op_migration(db_path: Path) -> None:
    calls: list[int] = []
    counted = [_counting(calls, i + 1, m) for i, m in enumerate(MIGRATIONS)]
    with open_store(db_path, migrations=counted) as s:
        add_conversation(s, "chat-aaaa")
    assert calls == list(range(1, SCHEMA_VERSION + 1))
    with open_store(db_path, migrations=counted) as s:
        assert s.conversation_exists("chat-aaaa")
    assert calls == list(range(1, SCHEMA_VERSION + 1))
    assert not any(".bak-" in n for n in _side_files(db_path))


def test_awkward_path_names(tmp_path: Path) -> None:
    path = tmp_path / "my data ? #1 é %20" / "ikgui.db"
    with open_store(path) as s:
        add_conversation(s, "chat-aaaa")
    with open_store(path) as s:
        assert s.conversation_exists("chat-aaaa")


def test_an_empty_file_is_initialised(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"")
    with open_store(db_path) as s:
        add_conversation(s, "chat-aaaa")
    assert _pragma(db_path, "user_version") == SCHEMA_VERSION


def test_pragmas_are_set(store: SqliteStore) -> None:
    conn = store._connection()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL


def test_models_match_the_migrated_schema(store: SqliteStore) -> None:
    conn = store._connection()
    for model in MODELS:
        table = model._meta.table_name
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        assert columns == {f.column_name for f in model._meta.sorted_fields}, table


# -- refusing --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        os.urandom(8192),
        b"hello, this is a text file\n" * 20,
        b"SQLite format 3\x00" + b"\x00" * 10,  # too short to be a database
        b"SQLite format 3\x00" + os.urandom(4080),  # right magic, garbage inside
    ],
    ids=["random", "text", "short", "bad-header"],
)
def test_a_file_that_is_not_sqlite_is_refused_untouched(db_path: Path, content: bytes) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(content)
    before = file_hash(db_path)
    with pytest.raises(StorageError) as info:
        open_store(db_path)
    assert str(info.value) == (
        f"{db_path} is not an ikgui database (not a valid SQLite file); it was left untouched."
    )
    assert file_hash(db_path) == before
    assert _side_files(db_path) == []


@pytest.mark.parametrize("user_version", [0, 99])
def test_another_programs_database_is_refused_untouched(db_path: Path, user_version: int) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.execute(f"PRAGMA user_version = {user_version}")
    conn.commit()
    conn.close()
    before = file_hash(db_path)
    with pytest.raises(StorageError, match="is not an ikgui database") as info:
        open_store(db_path)
    assert str(info.value).startswith(str(db_path))
    assert "left untouched" in str(info.value)
    assert file_hash(db_path) == before
    assert _side_files(db_path) == []


def test_a_newer_schema_is_refused_untouched(db_path: Path) -> None:
    with open_store(db_path) as s:
        add_conversation(s, "chat-aaaa")
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    conn.commit()
    conn.close()
    before = file_hash(db_path)
    sides = _side_files(db_path)
    with pytest.raises(StorageError) as info:
        open_store(db_path)
    assert str(info.value) == (
        f"{db_path} was written by a newer version of ikgui (schema {SCHEMA_VERSION + 3}; "
        f"this version reads up to {SCHEMA_VERSION}). Upgrade ikgui to open it; "
        "the file was not changed."
    )
    assert file_hash(db_path) == before
    assert _side_files(db_path) == sides


def test_a_newer_schema_is_refused_while_another_program_has_it_open(db_path: Path) -> None:
    with open_store(db_path) as s:
        add_conversation(s, "chat-aaaa")
    newer = sqlite3.connect(db_path, isolation_level=None)
    newer.execute("PRAGMA journal_mode = wal")
    newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")  # lives in the WAL
    try:
        with pytest.raises(StorageError, match="newer version of ikgui"):
            open_store(db_path)
    finally:
        newer.close()


def test_a_damaged_ikgui_database_is_reported_untouched(db_path: Path) -> None:
    with open_store(db_path) as s:
        for i in range(100):
            add_conversation(s, f"chat-{i:04d}", title="a title " * 20)
    damaged = bytearray(db_path.read_bytes())
    for offset in range(4096, len(damaged), 4096):  # every page but the header page
        damaged[offset : offset + 64] = os.urandom(64)
    db_path.write_bytes(bytes(damaged))
    before = file_hash(db_path)
    with pytest.raises(StorageError) as info, open_store(db_path) as s:
        s.list_conversations()
    assert str(info.value) in {
        f"{db_path} is a damaged ikgui database and cannot be read; it was left untouched.",
        f"Could not read the database {db_path}: the file is damaged.",
    }
    assert file_hash(db_path) == before


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="is a folder"):
        open_store(tmp_path)


def test_a_folder_that_cannot_be_created_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StorageError, match="Could not create the folder"):
        open_store(blocker / "sub" / "ikgui.db")


# -- migrating -------------------------------------------------------------------------


@pytest.mark.parametrize("start", range(1, SCHEMA_VERSION + 1))
def test_migrates_from_each_earlier_schema(tmp_path: Path, start: int) -> None:
    fresh = tmp_path / "fresh.db"
    open_store(fresh).close()
    old = tmp_path / "old.db"
    open_store(old, migrations=MIGRATIONS[:start]).close()
    assert _pragma(old, "user_version") == start
    open_store(old).close()
    assert _pragma(old, "user_version") == SCHEMA_VERSION
    assert _schema(old) == _schema(fresh)
    backups = [n for n in _side_files(old) if n.startswith("old.db.bak-")]
    assert backups == ([] if start == SCHEMA_VERSION else [f"old.db.bak-v{start}"])


def _add_colour(calls: list[int]) -> Migration:
    def v_next(conn: sqlite3.Connection) -> None:
        calls.append(1)
        conn.execute("ALTER TABLE conversation ADD COLUMN colour TEXT NULL")

    return v_next


def test_a_new_migration_backs_up_first_and_runs_once(db_path: Path) -> None:
    first = open_store(db_path)
    add_conversation(first, "chat-aaaa")
    first.append_event("chat-aaaa", "user", "only in the WAL so far")
    calls: list[int] = []
    newer = [*MIGRATIONS, _add_colour(calls)]
    # ``first`` stays open: its last writes are in the WAL, and the backup must have them.
    with open_store(db_path, migrations=newer) as s:
        assert [e.content for e in s.events("chat-aaaa")] == ["only in the WAL so far"]
    first.close()
    assert calls == [1]
    backup = db_path.with_name(f"ikgui.db.bak-v{SCHEMA_VERSION}")
    assert backup.exists()
    assert _pragma(backup, "user_version") == SCHEMA_VERSION
    conn = sqlite3.connect(backup)
    assert conn.execute("SELECT content FROM event").fetchall() == [("only in the WAL so far",)]
    conn.close()
    assert _pragma(db_path, "user_version") == SCHEMA_VERSION + 1
    with open_store(db_path, migrations=newer):
        pass
    assert calls == [1]
    assert [n for n in _side_files(db_path) if ".bak-" in n] == [backup.name]
    # The code that knows only the older schema now refuses the file.
    with pytest.raises(StorageError, match="newer version"):
        open_store(db_path)


def test_an_existing_backup_is_never_overwritten(db_path: Path) -> None:
    open_store(db_path).close()
    taken = db_path.with_name(f"ikgui.db.bak-v{SCHEMA_VERSION}")
    taken.write_bytes(b"precious")
    open_store(db_path, migrations=[*MIGRATIONS, _add_colour([])]).close()
    assert taken.read_bytes() == b"precious"
    assert taken.with_name(taken.name + ".1").exists()


def _failing(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE conversation ADD COLUMN colour INTEGER")
    raise RuntimeError("half way")


def test_a_failed_migration_changes_nothing_and_says_where_the_backup_is(db_path: Path) -> None:
    with open_store(db_path) as s:
        add_conversation(s, "chat-aaaa")
    with pytest.raises(StorageError) as info:
        open_store(db_path, migrations=[*MIGRATIONS, _failing])
    message = str(info.value)
    assert f"Could not upgrade the database {db_path} to schema {SCHEMA_VERSION + 1}" in message
    assert f"still at schema {SCHEMA_VERSION}" in message
    assert f"ikgui.db.bak-v{SCHEMA_VERSION}" in message
    assert _pragma(db_path, "user_version") == SCHEMA_VERSION
    with open_store(db_path) as s:
        assert s.conversation_exists("chat-aaaa")
        columns = {r[1] for r in s._connection().execute("PRAGMA table_info(conversation)")}
        assert "colour" not in columns


def test_closed_store_refuses_use(db_path: Path) -> None:
    s = open_store(db_path)
    s.close()
    s.close()  # idempotent
    call: Callable[[], object] = s.list_conversations
    with pytest.raises(StorageError, match="closed"):
        call()


def test_version_2_gains_pins_unpinned(db_path: Path) -> None:
    """Schema v3 (pins): a v2 database keeps its conversations, none of them pinned."""
    with open_store(db_path, migrations=MIGRATIONS[:2]) as old:
        old._connection().execute(
            "INSERT INTO conversation (id, created_at, updated_at) VALUES ('chat-aaaa', 1, 1)"
        )
    with open_store(db_path) as new:
        conv = new.get_conversation("chat-aaaa")
        assert conv is not None and not conv.pinned
        assert new.set_pinned(["chat-aaaa"], True) == 1
        assert [c.id for c in new.list_conversations(pinned=True)] == ["chat-aaaa"]
    assert db_path.with_name("ikgui.db.bak-v2").exists()

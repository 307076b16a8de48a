"""The PostgreSQL store on a real server: opening, the schema and its migrations,
refusals, failures in plain words, and psycopg staying optional."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import psycopg
import pytest

from ikgui.domain.errors import DatabaseUnreachable, StorageError
from ikgui.domain.events import Conversation
from ikgui.storage import NEEDS_PSYCOPG, open_store
from ikgui.storage.models import MODELS
from ikgui.storage.pg_migrations import PG_MIGRATIONS, PG_ONLY_COLUMNS, PgMigration
from tests.support.pg_server import PgServer, free_port
from tests.support.waiting import wait_for


def _rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(sql.encode())
        return list(cursor.fetchall()) if cursor.description else []


def _tables(url: str) -> set[str]:
    rows = _rows(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    return {r[0] for r in rows}


def test_a_fresh_database_is_made_at_the_current_schema(pg_url: str) -> None:
    with open_store(pg_url) as store:
        current = len(PG_MIGRATIONS)
        assert store.kind == "postgresql" and store.schema_version() == current == 9
        where = pg_url.removeprefix("postgresql://")
        assert store.describe() == f"PostgreSQL {where}"
        assert store.path is None and store.database is not None
    meta = dict(_rows(pg_url, "SELECT key, value FROM ikgui_meta"))
    assert meta == {"application": "ikgui", "schema_version": str(current)}
    with open_store(pg_url) as again:  # opening again changes nothing
        assert again.schema_version() == current


def test_models_match_the_created_schema(pg_url: str) -> None:
    open_store(pg_url).close()
    for model in MODELS:
        table = model._meta.table_name
        columns = {
            r[0]
            for r in _rows(
                pg_url,
                "SELECT column_name FROM information_schema.columns "
                f"WHERE table_name = '{table}' AND is_generated = 'NEVER'",
            )
        }
        own = PG_ONLY_COLUMNS.get(table, frozenset())
        assert columns - own == {f.column_name for f in model._meta.sorted_fields}, table


def test_a_newer_schema_is_refused_untouched(pg_url: str) -> None:
    open_store(pg_url).close()
    _rows(pg_url, "UPDATE ikgui_meta SET value = '10' WHERE key = 'schema_version'")
    before = _tables(pg_url)
    with pytest.raises(StorageError, match=r"newer version of ikgui \(schema 10; this version"):
        open_store(pg_url)
    assert _tables(pg_url) == before


def test_another_programs_database_is_refused_untouched(pg_url: str) -> None:
    _rows(pg_url, "CREATE TABLE invoices (id integer)")
    with pytest.raises(StorageError, match="is not an ikgui database"):
        open_store(pg_url)
    assert _tables(pg_url) == {"invoices"}


def _boom(cursor: Any) -> None:
    cursor.execute("CREATE TABLE half_done (id integer)")
    raise RuntimeError("no room")


def test_a_failing_migration_leaves_nothing_half_done(pg_url: str) -> None:
    broken: tuple[PgMigration, ...] = (*PG_MIGRATIONS[:2], _boom)
    with pytest.raises(StorageError, match=r"to schema 3 .*no room.*still at schema 0"):
        open_store(pg_url, migrations=broken)
    assert _tables(pg_url) == set()  # versions 1 and 2 were undone with 3
    with open_store(pg_url, migrations=PG_MIGRATIONS[:2]) as two:
        assert two.schema_version() == 2
    with pytest.raises(StorageError, match="still at schema 2"):
        open_store(pg_url, migrations=broken)
    assert "half_done" not in _tables(pg_url)
    with open_store(pg_url) as upgraded:  # 2 -> 3: the pinned flag works
        upgraded.insert_conversation(Conversation(id="chat-aaaa", created_at=1, updated_at=1))
        assert upgraded.set_pinned(["chat-aaaa"], True) == 1


def test_an_unreachable_server_is_said_in_plain_words_quickly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port = free_port()
    attempts: list[object] = []
    connect = psycopg.connect
    monkeypatch.setattr(psycopg, "connect", lambda *a, **k: attempts.append(a) or connect(*a, **k))
    with pytest.raises(DatabaseUnreachable) as caught:
        open_store(f"postgresql://ikgui@127.0.0.1:{port}/ikgui")
    assert len(attempts) == 1  # quickly: one try, no retry loop (counted, not timed)
    assert caught.value.where == f"127.0.0.1:{port}"
    assert (
        str(caught.value) == f"Cannot reach the database at 127.0.0.1:{port} (connection refused)"
    )


def test_an_unknown_host_is_unreachable() -> None:
    with pytest.raises(
        DatabaseUnreachable, match=r"^Cannot reach the database at nowhere\.invalid:5432"
    ):
        open_store("postgresql://ikgui@nowhere.invalid/ikgui")


def test_a_wrong_password_is_refused_without_echoing_it(pg_server: PgServer, pg_url: str) -> None:
    role = f"u{time.monotonic_ns()}"
    pg_server.psql(f"CREATE ROLE {role} LOGIN PASSWORD 'right-horse'")
    url = pg_url.replace("postgresql://ikgui@", f"postgresql://{role}@")
    with pytest.raises(StorageError) as caught:
        open_store(url, password="wrong-battery")
    where = f"{pg_server.host}:{pg_server.port}"
    assert str(caught.value) == f"The database at {where} refused the password for user {role}."
    assert "wrong-battery" not in repr(caught.value.__dict__)


def test_a_password_in_the_url_is_refused() -> None:
    with pytest.raises(StorageError, match="holds a password"):
        open_store("postgresql://me:secret@127.0.0.1:1/db")


def test_a_missing_database_is_named(pg_server: PgServer) -> None:
    with pytest.raises(StorageError, match="has no database named nothing_here"):
        open_store(pg_server.url("nothing_here"))


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_without_psycopg_a_url_says_what_to_install() -> None:
    done = _python(
        "import sys\n"
        "sys.modules['psycopg'] = None\n"
        "from ikgui.domain.errors import StorageError\n"
        "from ikgui.storage import open_store\n"
        "try:\n"
        "    open_store('postgresql://ikgui@127.0.0.1:1/ikgui')\n"
        "except StorageError as exc:\n"
        "    print(exc)\n"
    )
    assert done.stdout.strip() == NEEDS_PSYCOPG, done.stderr
    assert NEEDS_PSYCOPG == (
        "Using a PostgreSQL database needs psycopg: pip install 'ikgui[postgres]'"
    )


def test_opening_sqlite_loads_no_postgresql_module(tmp_path: Any) -> None:
    done = _python(
        "import sys\n"
        "from ikgui.storage import open_store\n"
        f"open_store({str(tmp_path / 'ikgui.db')!r}).close()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('psycopg', 'ikgui.storage.pg'))"
        " or m == 'ikgui.storage.dialect_postgres'))\n"
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_every_write_is_announced_on_ikgui_changes(pg_url: str) -> None:
    with open_store(pg_url) as store, psycopg.connect(pg_url, autocommit=True) as listener:
        listener.execute("LISTEN ikgui_changes")
        store.insert_conversation(
            Conversation(id="chat-aaaa", created_at=1, updated_at=1, tags=("work",))
        )
        store.append_event("chat-aaaa", "user", "hello")
        store.rename_tag("work", "job")
        # One notification per table a transaction wrote (the server folds repeats).
        tables = [n.payload for n in listener.notifies(timeout=2, stop_after=5)]
    assert sorted(tables) == ["conversation", "conversation", "event", "tag", "tag"]


def test_data_version_changes_when_another_connection_commits(pg_url: str) -> None:
    with open_store(pg_url) as mine, open_store(pg_url) as other:
        before = mine.data_version()
        other.insert_conversation(Conversation(id="chat-aaaa", created_at=1, updated_at=1))
        other.append_event("chat-aaaa", "user", "from another machine")
        wait_for(lambda: mine.data_version() != before)  # at once, or once it is heard

"""peewee is imported without psycopg for SQLite, and gets it back for PostgreSQL
(ikgui/storage/_peewee.py)."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_sqlite_store_does_not_load_psycopg() -> None:
    code = (
        "import sys, ikgui.storage, ikgui.storage.models, peewee; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'psycopg'))"
    )
    assert _run(code) == "[]"


def test_peewee_gets_psycopg_back_for_postgresql(pg_url: str) -> None:
    code = (
        "import ikgui.storage, peewee\n"
        "ikgui.storage.enable_psycopg()\n"
        f"db = peewee.PostgresqlDatabase({pg_url!r})\n"
        "db.execute_sql('CREATE TABLE t (a integer)')\n"
        "with db.atomic():\n"
        "    db.execute_sql('INSERT INTO t VALUES (5)')\n"
        "print(db.execute_sql('SELECT a FROM t').fetchone()[0], db.in_transaction())\n"
    )
    assert _run(code) == "5 False"

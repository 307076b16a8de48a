"""peewee is imported without psycopg for SQLite, and gets it back for PostgreSQL
(ikgui/storage/_peewee.py, the one start-up trick kept on a library's internals: these
tests pin the peewee versions and the names it relies on)."""

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


def test_peewee_is_a_version_the_trick_was_checked_with() -> None:
    """An upgrade of peewee must re-check ikgui/storage/_peewee.py (then widen TESTED)."""
    import peewee

    from ikgui.storage import _peewee

    version = tuple(int(part) for part in peewee.__version__.split(".")[:2])
    low, high = _peewee.TESTED
    assert low <= version < high, f"peewee {peewee.__version__}: re-check storage/_peewee.py"


def test_the_trick_sets_exactly_what_peewees_psycopg_code_reads() -> None:
    """The module globals peewee's psycopg 3 code reads that are missing while psycopg is
    hidden are the ones enable_psycopg sets, and it sets them all (a fresh process)."""
    code = (
        "import builtins, dis, ikgui.storage, peewee\n"
        "from ikgui.storage import _peewee\n"
        "A, D = peewee.Psycopg3Adapter, peewee.PostgresqlDatabase\n"
        "read = set()\n"
        "for f in [*vars(A).values(), *vars(D).values()]:\n"
        "    f = getattr(f, 'fget', f)\n"
        "    if hasattr(f, '__code__'):\n"
        "        read |= {i.argval for i in dis.get_instructions(f)\n"
        "                 if i.opname == 'LOAD_GLOBAL'}\n"
        "hidden = sorted(n for n in read if not hasattr(builtins, n)\n"
        "    and getattr(peewee, n, None) is None and not n.startswith('psycopg2'))\n"
        "ikgui.storage.enable_psycopg()\n"
        "unset = [n for n in _peewee.GLOBALS if getattr(peewee, n, None) is None]\n"
        "unset += [a for a in _peewee.ADAPTER_STATUSES if getattr(A, a, None) is None]\n"
        "print(hidden == sorted(_peewee.GLOBALS), unset)\n"
    )
    assert _run(code) == "True []"

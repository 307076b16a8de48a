"""Opening a PostgreSQL store: connect, migrate (one transaction), wrap in the store.

Imported only for a ``postgresql://`` location (it imports psycopg).
"""

from __future__ import annotations

from collections.abc import Sequence

from ikgui.domain.errors import StorageError
from ikgui.storage._peewee import enable_psycopg
from ikgui.storage.dialect_postgres import open_database
from ikgui.storage.pg_migrations import PG_MIGRATIONS, PgMigration, migrate
from ikgui.storage.pg_open import PasswordSource, parse
from ikgui.storage.repository import PeeweeStore


def open_postgres(
    url: str, password: PasswordSource = None, migrations: Sequence[PgMigration] = PG_MIGRATIONS
) -> PeeweeStore:
    """The store on the database at ``url``, created or upgraded as needed (``password``:
    see :class:`~ikgui.storage.pg_open.Secret`)."""
    enable_psycopg()
    target = parse(url)
    db, dialect = open_database(target, password)
    where = f"{target.user}@{target.where}/{target.dbname}"
    try:
        migrate(db.connection(), where, migrations)
    except StorageError:
        db.close()
        raise
    except Exception as exc:
        error = dialect.error(exc, writing=False)
        db.close()
        raise error from exc
    store = PeeweeStore(db, dialect)
    store.save_behind()  # a server that stops answering must not hold up a window
    return store

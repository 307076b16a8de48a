"""Storage for ikgui: ``open_store(path)`` (SQLite) or ``open_store("postgresql://…")``
gives the domain's ``Store``.

Errors (all ``ikgui.domain.errors.StorageError`` unless noted):

- opening: not SQLite / another program's database / a newer schema (file untouched),
  a folder that cannot be created, a failed migration (a backup copy is kept);
- any failed read or write: ``Could not write to the database <path>: <reason>.``;
- ``NotFoundError`` for a write to a missing conversation or event;
- PostgreSQL: ``DatabaseUnreachable`` ("Cannot reach the database at host:port (why)")
  when the server cannot be reached, at opening or later (the store reconnects by itself
  on a later call); a refused password, a missing database or role, a newer schema or
  another program's tables in plain words. psycopg is imported only for a URL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ikgui.domain.errors import StorageError
from ikgui.storage._peewee import enable_psycopg  # first: peewee without psycopg
from ikgui.storage.db import (
    DB_ERRORS,
    is_disk_full,
    open_database,
    raw_connection,
    storage_error,
)
from ikgui.storage.migrations import MIGRATIONS, SCHEMA_VERSION, Migration, migrate
from ikgui.storage.readonly import (
    existing_side_files,
    open_read_only,
    read_only_message,
    remove_new_side_files,
    unwritable,
    unwritable_message,
)
from ikgui.storage.repository import PeeweeStore, SqliteStore

__all__ = [
    "NEEDS_PSYCOPG",
    "SCHEMA_VERSION",
    "PeeweeStore",
    "SqliteStore",
    "copy_history",
    "enable_psycopg",
    "history_counts",
    "is_database_url",
    "open_store",
]


def __getattr__(name: str) -> Any:
    """``copy_history`` and ``history_counts`` (``ikgui db``), loaded when first asked for:
    start-up never pays for them."""
    if name in ("copy_history", "history_counts"):
        from ikgui.storage import copy

        return getattr(copy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    from ikgui.domain.ports import Store
    from ikgui.storage.copy import copy_history, history_counts

    def _implements_the_port(store: PeeweeStore) -> Store:
        return store  # mypy checks SqliteStore against the Store protocol here


#: What opening a PostgreSQL URL without the optional driver says.
NEEDS_PSYCOPG = "Using a PostgreSQL database needs psycopg: pip install 'ikgui[postgres]'"
_PG_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(location: object) -> bool:
    """Whether ``location`` names a PostgreSQL database (not a SQLite file)."""
    return isinstance(location, str) and location.startswith(_PG_SCHEMES)


def open_store(
    location: Path | str,
    *,
    password: str | Callable[[], str | None] | None = None,
    migrations: Sequence[Any] | None = None,
) -> PeeweeStore:
    """Open (creating or upgrading as needed) the ikgui database at ``location``: a SQLite
    file path, or a ``postgresql://`` URL (``password`` given beside it, never shown; a
    function is called for it only when the server asks for one).

    When its disk is full, an existing, current SQLite database opens read-only
    (``read_only`` says why) and the side files the failed attempt made are removed.
    ``migrations`` is for tests; it defaults to every schema version this code knows.
    """
    if is_database_url(location):
        try:
            from ikgui.storage.pg_store import open_postgres
        except ImportError as exc:
            if (exc.name or "").split(".")[0] in ("psycopg", "psycopg_binary", "psycopg_c"):
                raise StorageError(NEEDS_PSYCOPG) from None
            raise
        if migrations is None:
            return open_postgres(str(location), password)
        return open_postgres(str(location), password, migrations)
    return _open_sqlite(Path(location), MIGRATIONS if migrations is None else migrations)


def _open_sqlite(path: Path, migrations: Sequence[Migration]) -> SqliteStore:
    existed = existing_side_files(path)
    try:
        return _open_for_writing(path, migrations)
    except StorageError as exc:
        if is_disk_full(exc, path):
            message = read_only_message(path)
        elif (why := unwritable(path)) is None:
            raise
        elif path.is_file():
            message = unwritable_message(why)
        else:  # nothing to browse: say why it cannot be made
            raise StorageError(f"Could not create the database {path}: {why}.", why) from exc
        remove_new_side_files(path, existed)
        try:
            db = open_read_only(path, len(migrations))
        except StorageError:
            raise exc from None
        return SqliteStore(db, path, read_only=message)


def _open_for_writing(path: Path, migrations: Sequence[Migration]) -> SqliteStore:
    db, _found = open_database(path, len(migrations))
    try:
        migrate(raw_connection(db), path, migrations)
    except StorageError:
        db.close()
        raise
    except DB_ERRORS as exc:
        db.close()
        raise storage_error(path, exc, writing=True) from exc
    return SqliteStore(db, path)

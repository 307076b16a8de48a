"""SQLite storage for ikgui: ``open_store(path)`` gives the domain's ``Store``.

Errors (all ``ikgui.domain.errors.StorageError`` unless noted):

- opening: not SQLite / another program's database / a newer schema (file untouched),
  a folder that cannot be created, a failed migration (a backup copy is kept);
- any failed read or write: ``Could not write to the database <path>: <reason>.``;
- ``NotFoundError`` for a write to a missing conversation or event.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ikgui.domain.errors import StorageError
from ikgui.storage.db import DB_ERRORS, open_database, raw_connection, storage_error
from ikgui.storage.migrations import MIGRATIONS, SCHEMA_VERSION, Migration, migrate
from ikgui.storage.repository import SqliteStore

__all__ = ["SCHEMA_VERSION", "SqliteStore", "open_store"]

if TYPE_CHECKING:
    from ikgui.domain.ports import Store

    def _implements_the_port(store: SqliteStore) -> Store:
        return store  # mypy checks SqliteStore against the Store protocol here


def open_store(path: Path, *, migrations: Sequence[Migration] = MIGRATIONS) -> SqliteStore:
    """Open (creating or upgrading as needed) the ikgui database at ``path``.

    ``migrations`` is for tests; it defaults to every schema version this code knows.
    """
    path = Path(path)
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

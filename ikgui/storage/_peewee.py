"""peewee without psycopg for SQLite, and psycopg handed to peewee for PostgreSQL.

peewee imports psycopg when it is first imported, whenever psycopg is installed (the
``postgres`` extra): about 100 ms of imports that every SQLite start-up and ``ikgui conv
list`` would pay for. Importing this module (``ikgui.storage`` does, first: its name
sorts before every other import there) imports peewee with psycopg hidden; the
PostgreSQL store calls :func:`enable_psycopg` before it opens a connection.
"""

from __future__ import annotations

import sys


def import_peewee() -> None:
    """Import peewee without letting it import psycopg (if nobody has imported it yet)."""
    if "peewee" in sys.modules or "psycopg" in sys.modules:
        return
    sys.modules["psycopg"] = None  # type: ignore[assignment]  # `import psycopg` fails
    try:
        import peewee  # noqa: F401
    finally:
        del sys.modules["psycopg"]


def enable_psycopg() -> None:
    """Give peewee the psycopg :func:`import_peewee` kept from it (ImportError without
    psycopg installed)."""
    import peewee
    import psycopg

    if getattr(peewee, "psycopg", None) is not None:
        return
    from psycopg.pq import TransactionStatus
    from psycopg.types.json import Json, Jsonb

    status = {"IDLE": "txn_idle", "INERROR": "txn_inerror", "UNKNOWN": "txn_unknown"}
    for member, attribute in status.items():
        setattr(peewee.Psycopg3Adapter, attribute, TransactionStatus[member])
    found = {"TransactionStatus": TransactionStatus, "Json_pg3": Json, "Jsonb_pg3": Jsonb}
    for name, value in {**found, "psycopg": psycopg}.items():  # psycopg last: "ready"
        setattr(peewee, name, value)


import_peewee()

"""The one start-up trick kept on a library: peewee imported without psycopg.

peewee imports psycopg when it is first imported, whenever psycopg is installed (the
``postgres`` extra), and SQLite never needs it. Measured on the tested versions (peewee
4.5.3, psycopg 3.3.9) with ``ikgui conv list`` on a 1,000-conversation SQLite database
(``benchmarks/make_db.py``), 30 alternating runs on a quiet machine: 109 ms median with
psycopg hidden, 201 ms without (``python -X importtime``: ``ikgui.storage`` imports in
~25 ms against ~96 ms).

peewee has no documented way to skip the driver, so this reaches into it: importing
this module (``ikgui.storage`` does, first) imports peewee while ``import psycopg``
fails, and :func:`enable_psycopg`, called by the PostgreSQL store before it connects,
sets the module globals peewee's psycopg 3 adapter reads (``GLOBALS``) and the
adapter's transaction-status constants, as peewee's own import would have.
``tests/storage/test_peewee_psycopg.py`` pins the peewee versions this was checked with
(``TESTED``) and that these are still the names its psycopg 3 code reads.
"""

from __future__ import annotations

import sys

#: peewee versions (major, minor) this was checked with: from the first, below the second.
TESTED = ((4, 5), (4, 6))
#: The globals of the ``peewee`` module its psycopg 3 adapter reads.
GLOBALS = ("psycopg", "TransactionStatus", "Json_pg3", "Jsonb_pg3")
#: ``Psycopg3Adapter`` class attribute -> ``psycopg.pq.TransactionStatus`` member.
ADAPTER_STATUSES = {"txn_idle": "IDLE", "txn_inerror": "INERROR", "txn_unknown": "UNKNOWN"}


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

    for attribute, member in ADAPTER_STATUSES.items():
        setattr(peewee.Psycopg3Adapter, attribute, TransactionStatus[member])
    values = {"TransactionStatus": TransactionStatus, "Json_pg3": Json, "Jsonb_pg3": Jsonb}
    for name, value in {**values, "psycopg": psycopg}.items():  # psycopg last: "ready"
        setattr(peewee, name, value)


import_peewee()

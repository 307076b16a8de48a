"""Queries built with peewee once per shape, then run with new values.

Building a query's SQL in peewee costs ~0.1–0.2 ms, more than SQLite takes to answer an
indexed lookup; the fork-chain counts run thousands of them. So each hot query is built
once per database kind and shape with stand-in values, its SQL text kept, and later runs
only substitute the real values for the stand-ins (the order peewee placed them in).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from peewee import SQL, Database

#: (database class, call site's key) -> (SQL text, each parameter: argument index or value)
_CACHE: dict[tuple[type, Hashable], tuple[str, list[tuple[int, Any]]]] = {}
_ARG = -1


def _stand_in(i: int, kind: type) -> Any:
    if kind is str:
        return f"\x00ikgui-arg-{i}\x00"
    return -(2**62) * (i + 1)  # an int that is also an exact float


def literal(text: str) -> SQL:
    """A constant written into the SQL (so SQLite can match a partial index's WHERE)."""
    return SQL("'" + text.replace("'", "''") + "'")


def compile_query(
    db: Database, key: Hashable, build: Callable[..., Any], kinds: Sequence[type]
) -> tuple[str, list[tuple[int, Any]]]:
    found = _CACHE.get((type(db), key))
    if found is None:
        stand_ins = [_stand_in(i, kind) for i, kind in enumerate(kinds)]
        where = {v: i for i, v in enumerate(stand_ins)}
        sql, params = db.get_sql_context().sql(build(*stand_ins)).query()  # type: ignore[no-untyped-call]
        slots = [
            (where[p], None) if isinstance(p, (str, int, float)) and p in where else (_ARG, p)
            for p in params
        ]
        found = _CACHE[(type(db), key)] = (sql, slots)
    return found


class Prepared:
    """One query shape: ``build(*values)`` returns the peewee query; ``kinds`` names each
    value's type (``str``, or ``int`` for numbers), or one type for any number of values
    (``IN`` lists: one SQL text per length)."""

    def __init__(self, build: Callable[..., Any], *kinds: type, many: bool = False) -> None:
        self.build = build
        self.kinds = kinds
        self.many = many

    def __call__(self, db: Database, *args: Any) -> Any:
        """Run it with ``args`` on ``db``; returns the driver's cursor."""
        if self.many:
            key: Hashable = (self, len(args))
            kinds: Sequence[type] = self.kinds * len(args)
        else:
            key, kinds = self, self.kinds
        return execute(db, key, self.build, kinds, args)


def execute(
    db: Database,
    key: Hashable,
    build: Callable[..., Any],
    kinds: Sequence[type],
    values: Sequence[Any],
) -> Any:
    """Run ``build(*values)`` (its SQL built once per ``key``); the driver's cursor."""
    sql, slots = compile_query(db, key, build, kinds)
    params = [values[i] if i != _ARG else value for i, value in slots]
    return execute_sql(db, sql, params)


def chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` in slices of at most ``size`` (peewee's ``chunked`` pads each to size)."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def execute_sql(db: Database, sql: str, params: Sequence[Any] = ()) -> Any:
    """``db.execute_sql`` (typed): the driver's cursor."""
    return db.execute_sql(sql, params)  # type: ignore[no-untyped-call]


def execute_query(db: Database, query: Any) -> Any:
    """``db.execute`` of a peewee query (typed): the driver's cursor."""
    return db.execute(query)  # type: ignore[no-untyped-call]

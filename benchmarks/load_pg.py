"""Load an ikgui SQLite database into an empty PostgreSQL database, fast (for benchmarks).

    python benchmarks/load_pg.py SQLITE_PATH postgresql://user@host:port/dbname

The schema is made by the PostgreSQL store itself (``open_store(url)``: its tables,
indexes, search column and triggers); the rows of every table both databases have are
then streamed with ``COPY`` (columns matched by name, parents before children), the
sequences moved past the copied ids, and the tables analysed. A table that already has
rows is left alone, so a second run does nothing. ``ikgui db copy --to URL`` does the
same job through the store (what a user runs; slower on a million events).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BATCH = 20_000


def make_schema(url: str) -> None:
    """The PostgreSQL store creates (or migrates) its schema when it opens."""
    from ikgui.storage import open_store

    open_store(url).close()


def _pg_tables(conn: Any) -> dict[str, list[str]]:
    rows = conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND is_generated = 'NEVER' "
        "ORDER BY table_name, ordinal_position"
    ).fetchall()
    tables: dict[str, list[str]] = {}
    for table, column in rows:
        tables.setdefault(table, []).append(column)
    return tables


def _parents_first(conn: Any, tables: list[str]) -> list[str]:
    """``tables`` ordered so that a table comes after those its foreign keys point to."""
    links = conn.execute(
        "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c "
        "WHERE c.contype = 'f' AND c.conrelid <> c.confrelid"
    ).fetchall()
    needs = {table: {parent for child, parent in links if child == table} for table in tables}
    ordered: list[str] = []
    while needs:
        ready = sorted(t for t, parents in needs.items() if not parents - set(ordered))
        ready = ready or sorted(needs)  # (a cycle: copy the rest as they come)
        ordered += ready
        for table in ready:
            del needs[table]
    return ordered


def _copy_table(source: sqlite3.Connection, conn: Any, table: str, columns: list[str]) -> int:
    names = ", ".join(f'"{c}"' for c in columns)
    cursor = source.execute(f'SELECT {names} FROM "{table}"')
    count = 0
    with conn.cursor().copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
        while rows := cursor.fetchmany(BATCH):
            for row in rows:
                copy.write_row(row)
            count += len(rows)
    return count


def _advance_sequences(conn: Any, tables: list[str]) -> None:
    """Move each serial/identity column's sequence past the largest copied id."""
    rows = conn.execute(
        "SELECT table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), "
        "column_name) FROM information_schema.columns WHERE table_schema = current_schema()"
    ).fetchall()
    for table, column, sequence in rows:
        if sequence and table in tables:
            conn.execute(
                f'SELECT setval(%s, greatest((SELECT max("{column}") FROM "{table}"), 1))',
                (sequence,),
            )


def load(sqlite_path: Path, url: str, *, say: Any = print) -> dict[str, int]:
    """Copy every table's rows from ``sqlite_path`` into ``url``; {table: rows copied}."""
    import psycopg

    make_schema(url)
    source = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    copied: dict[str, int] = {}
    try:
        there = {
            name
            for (name,) in source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        with psycopg.connect(url) as conn:
            pg = _pg_tables(conn)
            for table in _parents_first(conn, sorted(there & set(pg))):
                source_columns = {row[1] for row in source.execute(f'PRAGMA table_info("{table}")')}
                columns = [c for c in pg[table] if c in source_columns]
                has_rows = conn.execute(f'SELECT EXISTS (SELECT 1 FROM "{table}")').fetchone()
                if not columns or (has_rows and has_rows[0]):
                    continue
                started = time.perf_counter()
                copied[table] = _copy_table(source, conn, table, columns)
                say(f"  {table}: {copied[table]:,} rows in {time.perf_counter() - started:.1f} s")
            _advance_sequences(conn, list(copied))
            conn.commit()
            conn.autocommit = True
            for table in copied:
                conn.execute(f'VACUUM ANALYZE "{table}"')
    finally:
        source.close()
    return copied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sqlite", type=Path)
    parser.add_argument("url")
    args = parser.parse_args()
    started = time.perf_counter()
    copied = load(args.sqlite, args.url)
    total = sum(copied.values())
    print(f"{total:,} rows copied in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()

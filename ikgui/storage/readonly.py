"""A full disk or a place ikgui cannot write to: opening the database read-only so
browsing keeps working.

A folder or file without write permission, or a read-only mount, refuses the write-ahead
log's side files: SQLite then says only "unable to open database file". The database is
opened read-only the same way, and the message says which of them it is.

Opening a write-ahead-logged database for writing needs room for its ``-wal`` and
``-shm`` files. When the disk is full that fails (SQLite says ``SQLITE_IOERR_SHMSIZE``),
and a plain read-only open fails the same way. So the side files the failed attempt
created are removed again, and the file is opened ``immutable`` (no side files at all)
when no ``-wal`` file holds changes, or ``mode=ro`` when a complete ``-wal``/``-shm``
pair is already there. Writes are then refused with a message that names the full disk.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from peewee import SqliteDatabase

from ikgui.domain.errors import StorageError
from ikgui.storage.db import BUSY_TIMEOUT_MS, DB_ERRORS, Database, inspect_file, raw_connection

SIDE_SUFFIXES = ("-wal", "-shm")
READ_PRAGMAS: tuple[tuple[str, object], ...] = (
    ("foreign_keys", 1),
    ("busy_timeout", BUSY_TIMEOUT_MS),
    ("cache_size", -16000),
)


def side_file(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def existing_side_files(path: Path) -> set[str]:
    return {suffix for suffix in SIDE_SUFFIXES if side_file(path, suffix).exists()}


def remove_new_side_files(path: Path, existed: set[str]) -> None:
    """Remove the ``-wal`` (if empty) and ``-shm`` files a failed open created."""
    wal = side_file(path, "-wal")
    with contextlib.suppress(OSError):
        if "-wal" not in existed and wal.exists() and wal.stat().st_size == 0:
            wal.unlink()
        if "-shm" not in existed and not wal.exists():
            side_file(path, "-shm").unlink(missing_ok=True)


def read_only_message(path: Path) -> str:
    return (
        f"the disk is full: no room left in {path.parent}; the database is read-only "
        "until space is freed"
    )


def unwritable(path: Path) -> str | None:
    """Why the database file ``path`` cannot be written (or made), or None if it can."""
    folder = path.parent
    if not folder.is_dir():
        return None  # the error that stopped the open says what is wrong with it
    try:
        if os.statvfs(folder).f_flag & getattr(os, "ST_RDONLY", 1):
            return f"{folder} is on a read-only file system"
    except (OSError, AttributeError):  # no statvfs (Windows): the access checks say it
        pass
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} cannot be written to (no permission)"
    if path.exists() and not os.access(path, os.W_OK):
        return f"the file {path} is read-only"
    return None


def unwritable_message(why: str) -> str:
    return f"{why}, so the database is open read-only"


def open_read_only(path: Path, known_version: int) -> SqliteDatabase:
    """``path`` opened for reading only, creating no file; raises ``StorageError`` when
    that cannot give a complete and current view."""
    wal = side_file(path, "-wal")
    has_changes = wal.exists() and wal.stat().st_size > 0
    if has_changes and not side_file(path, "-shm").exists():
        raise StorageError(f"{path} has unmerged changes that cannot be read read-only")
    version = inspect_file(path, known_version)
    if version != known_version:
        raise StorageError(f"{path} needs an upgrade, which cannot be done read-only")
    query = "?mode=ro" if has_changes else "?mode=ro&immutable=1"
    db = Database(
        path,
        uri=path.resolve().as_uri() + query,
        pragmas=list(READ_PRAGMAS),
        timeout=BUSY_TIMEOUT_MS / 1000,
    )
    try:
        raw_connection(db).execute("SELECT count(*) FROM conversation").fetchone()
    except DB_ERRORS as exc:
        db.close()
        raise StorageError(f"{path} cannot be read read-only: {exc}") from exc
    return db

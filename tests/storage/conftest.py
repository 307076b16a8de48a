"""Fixtures for storage tests: a real database per test.

A test module that sets ``STORES = ("sqlite", "postgresql")`` runs each of its tests
that takes the ``store`` fixture on both: a SQLite file, and a fresh database on the
real PostgreSQL server of ``tests/support/pg_server.py`` (started only when needed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ikgui.storage import PeeweeStore, SqliteStore, open_store

BOTH = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "store" in metafunc.fixturenames and "store_kind" in metafunc.fixturenames:
        kinds = getattr(metafunc.module, "STORES", ("sqlite",))
        metafunc.parametrize("store_kind", kinds)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "ikgui.db"


def open_kind(kind: str, request: pytest.FixtureRequest, path: Path) -> PeeweeStore:
    """A fresh store of ``kind`` ("sqlite" at ``path``, or "postgresql")."""
    if kind == "postgresql":
        return open_store(request.getfixturevalue("pg_url"))
    return open_store(path)


@pytest.fixture
def store(store_kind: str, db_path: Path, request: pytest.FixtureRequest) -> Iterator[SqliteStore]:
    s = open_kind(store_kind, request, db_path)
    yield s  # type: ignore[misc]
    s.close()

"""Fixtures for storage tests: a real database file per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ikgui.storage import SqliteStore, open_store


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "ikgui.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[SqliteStore]:
    s = open_store(db_path)
    yield s
    s.close()

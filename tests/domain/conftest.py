"""Domain tests stand alone: no database file, no network.

They run on ``tests.support.memstore.MemoryStore`` and
``tests.support.scripted.ScriptedProvider``. The guard below makes that a rule: opening
an SQLite database or connecting a socket fails the test that tries it (the real parts
are tested in tests/storage, tests/providers, tests/cli and tests/ui).
"""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest


def _refuse(what: str) -> Any:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a domain test {what}: use MemoryStore / ScriptedProvider")

    return refuse


@pytest.fixture(autouse=True)
def no_database_or_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(sqlite3, "connect", _refuse("opened an SQLite database"))
    monkeypatch.setattr(socket.socket, "connect", _refuse("connected a socket"))
    monkeypatch.setattr(socket.socket, "connect_ex", _refuse("connected a socket"))
    yield

"""Test configuration shared by every layer's tests."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from tests.support.memkeyring import MemoryKeyring
from tests.support.pg_server import PgServer, PgServerError

pytest_plugins = ["tests.support.error_watch"]

# GUI tests run without a display; set before anything imports Qt. The virtual screen is
# 1920×1080 (Qt's offscreen default, 800×600, would start every window in its compact
# layout); tests of small windows size them themselves.
_SCREEN = os.path.join(os.path.dirname(__file__), "support", "screen.json")
os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"
os.environ.pop("IKGUI_HOME", None)
os.environ.pop("IKGUI_DATABASE_URL", None)  # never a developer's own database
# Each test process (one per pytest-xdist worker) has user directories of its own: what
# a test without a home of its own writes lands there, never in the developer's files nor
# in another worker's.
_USER_DIRS = tempfile.mkdtemp(prefix="ikgui-tests-")
os.environ["XDG_DATA_HOME"] = os.path.join(_USER_DIRS, "data")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_USER_DIRS, "config")
atexit.register(shutil.rmtree, _USER_DIRS, True)


# -- a real PostgreSQL server (tests/support/pg_server.py) -----------------------------
# Started on first use only: a run that never asks for it does not pay for it.
@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One PostgreSQL server for the whole run; fails (never skips) when there is none."""
    try:
        server = PgServer()
    except PgServerError as error:
        pytest.fail(str(error), pytrace=False)
    with server:
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """The URL of a fresh, empty database for one test (dropped after it)."""
    if not pg_server.running:  # an earlier test stopped it and failed to start it again
        pg_server.start()
    url = pg_server.create_database()
    yield url
    if not pg_server.running:
        pg_server.start()
    pg_server.drop_database(url.rsplit("/", 1)[1])


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """The keyring in memory for one test (the OS keyring cannot run here)."""
    import keyring

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)

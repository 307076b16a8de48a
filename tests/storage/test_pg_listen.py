"""The PostgreSQL change listener on a real server: what another connection announces
bumps the version, our own backends do not, and a restarted server is listened to again
by itself.

No test here times anything: a notification is pushed (the listener polls nothing), so
the waits are only there for a stuck test to end. How soon a change arrives is
``benchmarks/bench_notify.py``'s to measure ("notify latency").

PostgreSQL delivers notifications in the order their transactions committed, so "ours
were not counted" is checked with a foreign notification sent after ours: once that
one is counted, ours have been seen too."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import psycopg
import pytest

from ikgui.storage import open_store
from ikgui.storage.pg_listen import CHANNEL, ChangeListener
from tests.storage.helpers import add_conversation
from tests.support.pg_server import PgServer
from tests.support.waiting import wait_for


@pytest.fixture
def listener(pg_url: str) -> Iterator[ChangeListener]:
    found = ChangeListener(pg_url)
    found.start()
    wait_for(lambda: found.connected, 10)
    yield found
    found.close()


def notify(url: str, payload: str = "event") -> int:
    """``NOTIFY`` from a connection of its own (as another machine's store would);
    returns that connection's backend pid."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
        return conn.info.backend_pid


def test_a_notify_from_another_connection_bumps_the_version(
    listener: ChangeListener, pg_url: str
) -> None:
    called = threading.Event()
    listener.on_change = called.set
    before = listener.version
    notify(pg_url)
    wait_for(lambda: listener.version > before)
    assert called.wait(20)
    assert listener.version == before + 1


def test_notifications_of_our_own_backends_do_not_count(
    listener: ChangeListener, pg_url: str
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as own:
        listener.add_own_pid(own.info.backend_pid)
        before = listener.version
        own.execute("SELECT pg_notify(%s, 'title')", (CHANNEL,))
        notify(pg_url)  # after ours: once it is counted, ours has been seen too
        wait_for(lambda: listener.version > before)
        assert listener.version == before + 1


def test_a_write_through_the_contract_trigger_is_announced(
    listener: ChangeListener, pg_url: str
) -> None:
    """The store's triggers (FOR EACH STATEMENT, ``pg_notify('ikgui_changes',
    TG_TABLE_NAME)``) reach the listener: a change to a row, not a hand-made NOTIFY."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS scratch (id int, title text)")
        conn.execute(
            "CREATE OR REPLACE FUNCTION scratch_notify() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN PERFORM pg_notify('ikgui_changes', TG_TABLE_NAME); RETURN NULL; END $$"
        )
        conn.execute(
            "CREATE TRIGGER scratch_changed AFTER INSERT OR UPDATE OR DELETE ON scratch "
            "FOR EACH STATEMENT EXECUTE FUNCTION scratch_notify()"
        )
        before = listener.version
        conn.execute("INSERT INTO scratch VALUES (1, 'a title')")
        wait_for(lambda: listener.version > before)


def test_a_restarted_server_is_listened_to_again(
    listener: ChangeListener, pg_url: str, pg_server: PgServer
) -> None:
    before = listener.version
    pg_server.restart()
    # Reconnected (the version moves: what was written meanwhile was not announced).
    wait_for(lambda: listener.connected and listener.version > before, 15)
    after = listener.version
    notify(pg_url)
    wait_for(lambda: listener.version > after)


def test_an_unreachable_server_is_retried_quietly_and_close_is_prompt(
    pg_server: PgServer,
) -> None:
    url = pg_server.url("no_such_database_here")
    found = ChangeListener(url)
    found.start()
    wait_for(lambda: found.error, 5)
    assert not found.connected and found.version == 0
    assert "no_such_database_here" in found.error
    found.close()
    wait_for(lambda: not any(t.name == "ikgui-listen" for t in threading.enumerate()))


def test_close_stops_a_listening_thread(pg_url: str) -> None:
    found = ChangeListener(pg_url)
    found.start()
    wait_for(lambda: found.connected, 10)
    thread = found._thread
    found.close()
    assert thread is not None
    wait_for(lambda: not thread.is_alive())  # (it wakes every WAIT to look)
    assert not found.connected


def test_a_store_hears_another_store_but_not_its_own_writes(
    pg_url: str,
) -> None:
    """Through the real store: its triggers announce, its own connections are known."""
    with open_store(pg_url) as mine, open_store(pg_url) as laptop:
        first = mine.data_version()  # starts the listener
        listener = mine.listener
        wait_for(lambda: listener.connected, 10)
        wait_for(lambda: mine.data_version() != first, 2)  # the connect's own bump
        before = mine.data_version()
        heard = listener.version
        add_conversation(mine, "c-mine", title="Mine")
        mine.append_event("c-mine", "user", "written here", None)
        mine.update_conversation("c-mine", title="Renamed here")
        notify(pg_url)  # committed after our writes: counted after theirs would be
        wait_for(lambda: listener.version > heard)
        assert listener.version == heard + 1
        before = mine.data_version()
        laptop.update_conversation("c-mine", title="Renamed on the laptop")
        wait_for(lambda: mine.data_version() != before)
        before = mine.data_version()
        laptop.set_tags("c-mine", ["shared"])
        wait_for(lambda: mine.data_version() != before)

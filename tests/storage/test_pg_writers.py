"""Two writers on one PostgreSQL database (issue 14 items 4 and 5): appends from two
processes never lose, duplicate or reorder an event; the send lock holds across
processes; a server that goes away gives plain errors, and the store reconnects by
itself once it is back."""

from __future__ import annotations

import contextlib
import subprocess
import sys

import psycopg
import pytest

from ikgui.domain.errors import DatabaseUnreachable, StorageError
from ikgui.domain.events import Conversation
from ikgui.storage import open_store
from ikgui.storage.pg_migrations import PG_MIGRATIONS
from tests.support.pg_server import PgServer
from tests.support.waiting import wait_for

APPENDS = 500

_WRITER = """
import sys
from ikgui.storage import open_store
url, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = open_store(url)
print("ready", flush=True)
sys.stdin.readline()  # go
for i in range(count):
    store.append_event("chat-both", "user", f"{name}-{i}")
store.close()
print("done", flush=True)
"""


def _writer(url: str, name: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, url, name, str(APPENDS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_two_processes_appending_at_once_lose_nothing(pg_url: str) -> None:
    with open_store(pg_url) as store:
        store.insert_conversation(Conversation(id="chat-both", created_at=1, updated_at=1))
    with contextlib.ExitStack() as stack:
        writers = [stack.enter_context(_writer(pg_url, name)) for name in "ab"]
        for w in writers:
            assert w.stdout is not None and w.stdout.readline().strip() == "ready"
        for w in writers:  # both start at once
            assert w.stdin is not None
            w.stdin.write("go\n")
            w.stdin.flush()
        for w in writers:
            w.stdin.close()
            assert w.wait(timeout=120) == 0
    with open_store(pg_url) as store:
        events = store.events("chat-both")
        conv = store.get_conversation("chat-both")
    contents = [e.content for e in events]
    assert len(contents) == 2 * APPENDS == len(set(contents))
    for name in "ab":
        mine = [c for c in contents if c.startswith(f"{name}-")]
        assert mine == [f"{name}-{i}" for i in range(APPENDS)]  # each writer's in its order
    ids = [e.id for e in events]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert conv is not None and conv.message_count == 2 * APPENDS


_HOLDER = """
import sys, time
from ikgui.storage import open_store
store = open_store(sys.argv[1])
lock = store.send_lock("chat-lock")
assert lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_the_send_lock_excludes_another_process_until_it_dies(pg_url: str) -> None:
    with open_store(pg_url) as store:
        with subprocess.Popen(
            [sys.executable, "-c", _HOLDER, pg_url], stdout=subprocess.PIPE, text=True
        ) as holder:
            try:
                assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
                mine = store.send_lock("chat-lock")
                assert not mine.acquire()
                other = store.send_lock("chat-other")
                assert other.acquire()  # other conversations are not affected
                other.release()
            finally:
                holder.kill()
        wait_for(mine.acquire)  # the server ends the dead process's session
        second = store.send_lock("chat-lock")
        assert not second.acquire()  # one holder at a time, also within one process
        mine.release()
        assert second.acquire()
        second.release()


def _fails_fast(call: object) -> StorageError:
    """``call``'s error, after one try to reach the server at most: no retry loop keeps
    the caller waiting (counted, not timed)."""
    attempts: list[object] = []
    connect = psycopg.connect

    def counted(*args: object, **kwargs: object) -> object:
        attempts.append(args)
        return connect(*args, **kwargs)  # type: ignore[arg-type]

    psycopg.connect = counted  # type: ignore[assignment]
    try:
        with pytest.raises(StorageError) as caught:
            call()  # type: ignore[operator]
    finally:
        psycopg.connect = connect
    assert len(attempts) <= 1, attempts
    return caught.value


def test_a_server_away_gives_plain_errors_and_the_store_comes_back(
    pg_server: PgServer, pg_url: str
) -> None:
    store = open_store(pg_url)
    try:
        store.insert_conversation(Conversation(id="chat-away", created_at=1, updated_at=1))
        store.append_event("chat-away", "user", "before")
        pg_server.stop()
        try:
            lost = _fails_fast(lambda: store.append_event("chat-away", "user", "during"))
            assert isinstance(lost, DatabaseUnreachable)
            assert str(lost).startswith(f"Cannot reach the database at {pg_server.host}:")
            away = _fails_fast(lambda: store.events("chat-away"))
            assert isinstance(away, DatabaseUnreachable) and away.where.endswith(
                f":{pg_server.port}"
            )
            _fails_fast(lambda: store.send_lock("chat-away").acquire())
        finally:
            pg_server.start()
        # The next call reconnects by itself.
        store.append_event("chat-away", "user", "after")
        assert [e.content for e in store.events("chat-away")] == ["before", "after"]
        # A restart between two calls is not even noticed.
        pg_server.restart()
        assert [e.content for e in store.events("chat-away")] == ["before", "after"]
        with store.transaction():
            store.append_event("chat-away", "user", "again")
        assert len(store.events("chat-away")) == 3
    finally:
        store.close()


_OPENER = """
import sys
from ikgui.storage import open_store
print("ready", flush=True)
sys.stdin.readline()
with open_store(sys.argv[1]) as store:
    print(store.schema_version(), flush=True)
"""


def test_two_processes_opening_a_new_database_at_once_migrate_it_once(pg_url: str) -> None:
    with contextlib.ExitStack() as stack:
        openers = [
            stack.enter_context(
                subprocess.Popen(
                    [sys.executable, "-c", _OPENER, pg_url],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
            for _ in range(2)
        ]
        for p in openers:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        for p in openers:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.close()
        versions = [p.stdout.read().strip() for p in openers if p.stdout is not None]
        assert [p.wait(timeout=60) for p in openers] == [0, 0]
    assert versions == [str(len(PG_MIGRATIONS))] * 2

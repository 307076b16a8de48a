"""``Store.tail_stamp``: the small stamp of a conversation's newest events by which a
window sees another process's reply grow and finish, without reading its text."""

from __future__ import annotations

from pathlib import Path

import pytest

from ikgui.storage import SqliteStore
from tests.storage.conftest import BOTH, open_kind

from .helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def test_tail_stamp_names_the_newest_own_events_newest_first(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    add_conversation(store, "chat-bbbb")
    assert store.tail_stamp("chat-aaaa", 3) == []
    first = store.append_event("chat-aaaa", "user", "héllo")
    store.append_event("chat-bbbb", "user", "another conversation")
    second = store.append_event("chat-aaaa", "assistant", "", {"streaming": True})
    third = store.append_event("chat-aaaa", "mark", "")
    stamp = store.tail_stamp("chat-aaaa", 2)
    assert [row[0] for row in stamp] == [third.id, second.id]
    assert stamp[0][1:] == (0, 0)  # no text, no data
    assert stamp[1][1] == 0 and stamp[1][2] > 0
    assert store.tail_stamp("chat-aaaa", 10)[-1] == (first.id, 5, 0)  # characters, not bytes
    assert store.tail_stamp("chat-aaaa", 0) == []
    assert store.tail_stamp("chat-none", 3) == []


def test_tail_stamp_changes_as_a_reply_grows_and_finishes(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    store.append_event("chat-aaaa", "user", "hi")
    streaming = {"provider": "p", "model": "m", "streaming": True, "owner": 4242}
    reply = store.append_event("chat-aaaa", "assistant", "", streaming)
    seen = [store.tail_stamp("chat-aaaa", 4)]
    for text in ("Hel", "Hello", "Hello, world"):
        store.update_event(reply.id, text, streaming)
        seen.append(store.tail_stamp("chat-aaaa", 4))
    # The last save had all the text: only the data tells that it finished.
    finished = {"provider": "p", "model": "m", "usage": {"input": 1, "output": 3}}
    store.update_event(reply.id, "Hello, world", {**finished, "interrupted": False})
    seen.append(store.tail_stamp("chat-aaaa", 4))
    assert len(set(map(tuple, seen))) == len(seen)  # every change gives a new stamp
    assert [s[0][0] for s in seen] == [reply.id] * len(seen)  # the newest id stays


def test_another_connection_sees_the_stamp_change(
    store: SqliteStore, store_kind: str, db_path: Path, request: pytest.FixtureRequest
) -> None:
    """The window's store reads what another process's store wrote (same file or server)."""
    add_conversation(store, "chat-aaaa")
    reply = store.append_event("chat-aaaa", "assistant", "", {"streaming": True})
    other = open_kind(store_kind, request, db_path)  # a second connection to the same data
    try:
        before = store.tail_stamp("chat-aaaa", 2)
        other.update_event(reply.id, "grown elsewhere", {"streaming": True})
        other.settle()  # (PostgreSQL: a growing reply is saved by the database thread)
        after = store.tail_stamp("chat-aaaa", 2)
    finally:
        other.close()
    assert before != after
    assert after[0] == (reply.id, len("grown elsewhere"), before[0][2])

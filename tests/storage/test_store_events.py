"""The event half of the Store port: appending, ranges, clears, streaming replies, transactions."""

from __future__ import annotations

import time

import pytest

from ikgui.domain.errors import NotFoundError
from ikgui.domain.events import Event
from ikgui.storage import SqliteStore
from ikgui.storage.models import EventRow
from tests.storage.conftest import BOTH

from .helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def test_append_returns_the_stored_event_with_global_ids(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    add_conversation(store, "chat-bbbb")
    before = time.time()
    first = store.append_event("chat-aaaa", "user", "hello")
    second = store.append_event("chat-bbbb", "user", "other")
    third = store.append_event("chat-aaaa", "assistant", "hi", {"model": "m", "usage": {"a": 1}})
    assert first.id < second.id < third.id
    assert before <= first.created_at <= time.time()
    assert third.data == {"model": "m", "usage": {"a": 1}}
    assert store.events("chat-aaaa") == [first, third]
    assert store.get_event(third.id) == third
    assert store.get_event(99999) is None
    loaded = store.events("chat-aaaa")[1]
    assert loaded.data_json() == '{"model": "m", "usage": {"a": 1}}'
    assert store.events("chat-aaaa")[0].data == {}


def test_append_keeps_unicode_and_a_given_time(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa", updated_at=5.0)
    ev = store.append_event("chat-aaaa", "user", "héllo 👋\n```py\nx = 1\n```", created_at=42.5)
    assert ev.created_at == 42.5
    loaded = store.get_event(ev.id)
    assert loaded is not None and loaded.content == "héllo 👋\n```py\nx = 1\n```"
    assert loaded.created_at == 42.5 and loaded.conversation_id == "chat-aaaa"
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None and conv.updated_at == 42.5


def test_append_to_a_missing_conversation_raises_and_stores_nothing(store: SqliteStore) -> None:
    with pytest.raises(NotFoundError, match="Conversation not found: chat-none"):
        store.append_event("chat-none", "user", "lost")
    assert store.search("lost") == []


def test_message_count_counts_only_user_and_assistant(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    for kind in ["system", "user", "assistant", "mark", "tool_call", "tool_result", "user"]:
        store.append_event("chat-aaaa", kind, "x")
    for kind in ["command", "error", "fork", "rewind", "clear", "prompt_edit", "assistant"]:
        store.append_event("chat-aaaa", kind, "y")
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None and conv.message_count == 4


def test_event_ranges(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    add_conversation(store, "chat-bbbb")
    ids = []
    for i in range(6):
        ids.append(store.append_event("chat-aaaa", "user", f"m{i}").id)
        store.append_event("chat-bbbb", "user", f"other{i}")

    def got(after: int | None = None, upto: int | None = None) -> list[int]:
        return [e.id for e in store.events("chat-aaaa", after=after, upto=upto)]

    assert got() == ids
    assert got(after=ids[2]) == ids[3:]
    assert got(upto=ids[2]) == ids[:3]
    assert got(after=ids[1], upto=ids[4]) == ids[2:5]
    assert got(upto=ids[2] + 1) == ids[:3]  # an id of the other conversation
    assert got(after=ids[5]) == []
    assert got(upto=0) == []
    assert store.events("chat-none") == []


def test_last_event_id(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    add_conversation(store, "chat-bbbb")
    assert store.last_event_id("chat-aaaa") is None
    mine = store.append_event("chat-aaaa", "user", "a")
    store.append_event("chat-bbbb", "user", "b")
    assert store.last_event_id("chat-aaaa") == mine.id
    mark = store.append_event("chat-aaaa", "mark", "", {"label": None})
    assert store.last_event_id("chat-aaaa") == mark.id
    assert store.last_event_id("chat-none") is None


def test_latest_clear(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    add_conversation(store, "chat-bbbb")
    store.append_event("chat-aaaa", "user", "a")
    assert store.latest_clear("chat-aaaa", None) is None
    c1 = store.append_event("chat-aaaa", "clear").id
    store.append_event("chat-aaaa", "user", "b")
    other = store.append_event("chat-bbbb", "clear").id
    c2 = store.append_event("chat-aaaa", "clear").id
    last = store.append_event("chat-aaaa", "user", "c").id
    assert store.latest_clear("chat-aaaa", None) == c2
    assert store.latest_clear("chat-aaaa", last) == c2
    assert store.latest_clear("chat-aaaa", c2) == c2
    assert store.latest_clear("chat-aaaa", c2 - 1) == c1
    assert store.latest_clear("chat-aaaa", c1 - 1) is None
    assert store.latest_clear("chat-bbbb", None) == other


def test_unfinished_replies(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    add_conversation(store, "chat-bbbb")
    a = store.append_event("chat-aaaa", "assistant", "partial", {"streaming": True})
    store.append_event("chat-aaaa", "assistant", "done", {"streaming": False})
    store.append_event("chat-aaaa", "assistant", "plain")
    store.append_event("chat-aaaa", "user", "odd", {"streaming": True})
    store.append_event("chat-aaaa", "assistant", "text", {"note": 'says "streaming"'})
    b = store.append_event("chat-bbbb", "assistant", "partial too", {"x": 1, "streaming": True})
    assert [e.id for e in store.unfinished_replies()] == [a.id, b.id]
    store.update_event(a.id, "partial, finished", {"streaming": False, "interrupted": True})
    assert [e.id for e in store.unfinished_replies()] == [b.id]


def test_update_event_replaces_content_and_data(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    ev = store.append_event("chat-aaaa", "assistant", "Hel", {"streaming": True})
    store.update_event(ev.id, "Hello there", {"streaming": False, "usage": {"input": 1}})
    got = store.get_event(ev.id)
    assert got is not None
    assert (got.content, got.data) == ("Hello there", {"streaming": False, "usage": {"input": 1}})
    store.update_event(ev.id, "Hello there", None)
    got = store.get_event(ev.id)
    assert got is not None and got.data == {} and got.data_json() is None
    with pytest.raises(NotFoundError, match="Event not found: 424242"):
        store.update_event(424242, "x", None)


def test_malformed_data_reads_as_empty(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    ev = store.append_event("chat-aaaa", "assistant", "x")
    EventRow.update(data="{not json").where(EventRow.id == ev.id).execute(store.database)
    [loaded] = store.events("chat-aaaa")
    assert loaded.data == {}
    assert store.unfinished_replies() == []


def test_transaction_commits_together_and_nests(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    with store.transaction():
        store.append_event("chat-aaaa", "user", "one")
        with store.transaction():
            store.append_event("chat-aaaa", "user", "two")
    assert [e.content for e in store.events("chat-aaaa")] == ["one", "two"]

    with pytest.raises(RuntimeError), store.transaction():
        store.append_event("chat-aaaa", "user", "three")
        with store.transaction():
            store.append_event("chat-aaaa", "user", "four")
        raise RuntimeError("undo all")
    assert [e.content for e in store.events("chat-aaaa")] == ["one", "two"]

    with store.transaction():
        store.append_event("chat-aaaa", "user", "five")
        with pytest.raises(RuntimeError), store.transaction():
            store.append_event("chat-aaaa", "user", "six")
            raise RuntimeError("undo the inner block only")
        store.append_event("chat-aaaa", "user", "seven")
    assert [e.content for e in store.events("chat-aaaa")] == ["one", "two", "five", "seven"]
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None and conv.message_count == 4
    assert not store.database.in_transaction()


def test_events_are_event_values(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    store.append_event("chat-aaaa", "future_kind", "from a newer version", {"k": [1, 2]})
    [ev] = store.events("chat-aaaa")
    assert isinstance(ev, Event)
    assert (ev.kind, ev.content, ev.data) == ("future_kind", "from a newer version", {"k": [1, 2]})


def test_tail_events_are_the_newest_own_events_oldest_first(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    add_conversation(store, "chat-bbbb")
    ids = []
    for i in range(6):
        ids.append(store.append_event("chat-aaaa", "user", f"m{i}", {"n": i}).id)
        store.append_event("chat-bbbb", "user", f"other{i}")
    tail = store.tail_events("chat-aaaa", 3)
    assert [e.id for e in tail] == ids[3:]
    assert [(e.conversation_id, e.content, e.data) for e in tail] == [
        ("chat-aaaa", f"m{i}", {"n": i}) for i in (3, 4, 5)
    ]
    assert [e.id for e in store.tail_events("chat-aaaa", 100)] == ids
    assert store.tail_events("chat-aaaa", 0) == []
    assert store.tail_events("chat-none", 5) == []

"""The conversation half of the Store port: rows, suffixes, updates, tags, usage, deletion."""

from __future__ import annotations

import pytest

from ikgui.domain.errors import NotFoundError
from ikgui.domain.events import Conversation
from ikgui.storage import SqliteStore
from tests.storage.conftest import BOTH

from .helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def test_insert_and_get_round_trip_every_field(store: SqliteStore) -> None:
    add_conversation(store, "chat-root")
    conv = Conversation(
        id="coder-x9y8",
        parent="chat-root",
        fork_event_id=7,
        agent="coder",
        provider="ollama",
        model="llama3",
        title="API design",
        title_by_user=True,
        tags=("Work", "api", " work "),
        status="killed",
        created_at=1700000000.25,
        updated_at=1700000100.5,
        tokens_input=12,
        tokens_output=34,
        cost=0.0125,
        message_count=3,
        trashed_at=1700000200.0,
        draft="half a thought",
    )
    store.insert_conversation(conv)
    got = store.get_conversation("coder-x9y8")
    expected = Conversation(**{**conv.__dict__, "tags": ("api", "work")})
    assert got == expected
    assert got is not None and got.visible_status == "trashed"


def test_missing_conversation(store: SqliteStore) -> None:
    assert store.get_conversation("chat-none") is None
    assert not store.conversation_exists("chat-none")
    add_conversation(store, "chat-here")
    assert store.conversation_exists("chat-here")


def test_insert_rejects_an_unknown_status(store: SqliteStore) -> None:
    with pytest.raises(ValueError, match="status"):
        add_conversation(store, "chat-aaaa", status="trashed")
    assert not store.conversation_exists("chat-aaaa")


def test_find_by_suffix_returns_sorted_matches(store: SqliteStore) -> None:
    for conv_id in ["coder-x1b2", "chat-a1b2", "chat-zzzz", "chat-b2"]:
        add_conversation(store, conv_id)
    assert store.find_by_suffix("b2") == ["chat-a1b2", "chat-b2", "coder-x1b2"]
    assert store.find_by_suffix("a1b2") == ["chat-a1b2"]
    assert store.find_by_suffix("chat-zzzz") == ["chat-zzzz"]
    assert store.find_by_suffix("chat-b2") == ["chat-b2"]
    assert store.find_by_suffix("nope") == []
    assert store.find_by_suffix("") == []
    # No wildcards, and case matters (ids are lowercase).
    assert store.find_by_suffix("%b2") == []
    assert store.find_by_suffix("_1b2") == []
    assert store.find_by_suffix("B2") == []


def test_update_conversation_sets_each_allowed_field(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    store.update_conversation(
        "chat-aaaa",
        title="New title",
        title_by_user=True,
        agent="coder",
        provider="openai",
        model="gpt-4o",
        status="killed",
        trashed_at=5.5,
        draft="unsent",
    )
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None
    assert (conv.title, conv.title_by_user, conv.agent, conv.provider, conv.model) == (
        "New title",
        True,
        "coder",
        "openai",
        "gpt-4o",
    )
    assert (conv.status, conv.trashed_at, conv.draft) == ("killed", 5.5, "unsent")
    store.update_conversation("chat-aaaa", trashed_at=None, draft=None, status="active")
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None
    assert (conv.trashed_at, conv.draft, conv.status) == (None, "", "active")
    store.update_conversation("chat-aaaa")  # nothing to do


def test_update_conversation_rejects_unknown_fields(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa", title="Kept")
    with pytest.raises(ValueError, match="Unknown conversation field: colour"):
        store.update_conversation("chat-aaaa", title="Lost", colour="red")
    with pytest.raises(ValueError):
        store.update_conversation("chat-aaaa", message_count=99)
    with pytest.raises(ValueError, match="status"):
        store.update_conversation("chat-aaaa", status="trashed")
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None and conv.title == "Kept" and conv.message_count == 0


def test_writes_to_a_missing_conversation_raise_not_found(store: SqliteStore) -> None:
    with pytest.raises(NotFoundError, match="Conversation not found: chat-none"):
        store.update_conversation("chat-none", title="x")
    with pytest.raises(NotFoundError):
        store.add_usage("chat-none", 1, 1, 0.1)
    with pytest.raises(NotFoundError):
        store.set_tags("chat-none", ["a"])
    assert store.all_tags() == []


def test_set_tags_replaces_and_normalizes(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa", tags=("old",))
    add_conversation(store, "chat-bbbb", tags=("Zeta", "alpha"))
    store.set_tags("chat-aaaa", ["Work", "work", " Ideas ", ""])
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None and conv.tags == ("ideas", "work")
    assert store.all_tags() == ["alpha", "ideas", "work", "zeta"]
    store.set_tags("chat-aaaa", [])
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None and conv.tags == ()
    assert store.all_tags() == ["alpha", "zeta"]


def test_add_usage_accumulates(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa", tokens_input=5, tokens_output=1, cost=0.5)
    store.add_usage("chat-aaaa", 10, 20, 0.25)
    store.add_usage("chat-aaaa", 1, 2, 0.125)
    conv = store.get_conversation("chat-aaaa")
    assert conv is not None
    assert (conv.tokens_input, conv.tokens_output, conv.cost) == (16, 23, 0.875)


def test_children_are_direct_forks_oldest_first(store: SqliteStore) -> None:
    add_conversation(store, "chat-root")
    add_conversation(store, "chat-late", parent="chat-root", created_at=30.0, status="killed")
    add_conversation(store, "chat-earl", parent="chat-root", created_at=10.0, trashed_at=99.0)
    add_conversation(store, "chat-mid1", parent="chat-root", created_at=20.0)
    add_conversation(store, "chat-gran", parent="chat-mid1", created_at=25.0)
    assert [c.id for c in store.children("chat-root")] == ["chat-earl", "chat-mid1", "chat-late"]
    assert [c.id for c in store.children("chat-mid1")] == ["chat-gran"]
    assert store.children("chat-gran") == []


def test_last_conversation_skips_the_trash_and_filters_by_agent(store: SqliteStore) -> None:
    assert store.last_conversation() is None
    add_conversation(store, "chat-old1", updated_at=10.0)
    add_conversation(store, "coder-mid", agent="coder", updated_at=20.0)
    add_conversation(store, "chat-new1", updated_at=30.0, status="killed")
    add_conversation(store, "coder-gone", agent="coder", updated_at=40.0, trashed_at=41.0)
    last = store.last_conversation()
    assert last is not None and last.id == "chat-new1"
    last = store.last_conversation("coder")
    assert last is not None and last.id == "coder-mid"
    assert store.last_conversation("writer") is None


def test_delete_removes_events_tags_and_index_entries(store: SqliteStore) -> None:
    add_conversation(store, "chat-gone", title="zebra title", tags=("t1",))
    add_conversation(store, "chat-kept", title="other", tags=("t2",))
    gone = store.append_event("chat-gone", "user", "zebra crossing")
    store.append_event("chat-gone", "mark", "", {"label": "m"})
    kept = store.append_event("chat-kept", "user", "zebra stripes")
    assert {h.conversation.id for h in store.search("zebra")} == {"chat-gone", "chat-kept"}
    store.delete_conversations(["chat-gone", "chat-gone", "chat-unknown"])
    assert store.get_conversation("chat-gone") is None
    assert store.events("chat-gone") == []
    assert store.get_event(gone.id) is None
    assert store.all_tags() == ["t2"]
    assert [h.conversation.id for h in store.search("zebra")] == ["chat-kept"]
    assert store.search("title") == []
    assert store.events("chat-kept") == [kept]
    # The index is consistent: an integrity check of the FTS tables passes.
    if store.kind == "sqlite":
        conn = store._connection()
        conn.execute("INSERT INTO event_fts (event_fts, rank) VALUES ('integrity-check', 1)")
        conn.execute("INSERT INTO title_fts (title_fts) VALUES ('integrity-check')")
    # Ids are never reused.
    assert store.append_event("chat-kept", "user", "next").id > gone.id + 1
    store.delete_conversations([])


def test_delete_parent_and_children_together_or_detach_survivors(store: SqliteStore) -> None:
    add_conversation(store, "chat-root")
    add_conversation(store, "chat-kid1", parent="chat-root", fork_event_id=1)
    add_conversation(store, "chat-kid2", parent="chat-root", fork_event_id=1)
    add_conversation(store, "chat-gkid", parent="chat-kid1", fork_event_id=2)
    store.delete_conversations(["chat-root", "chat-kid1", "chat-gkid"])
    kid2 = store.get_conversation("chat-kid2")
    assert kid2 is not None and (kid2.parent, kid2.fork_event_id) == (None, None)
    assert [c.id for c in store.list_conversations()] == ["chat-kid2"]

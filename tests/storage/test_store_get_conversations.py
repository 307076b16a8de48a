"""``Store.get_conversations``: many conversations by id in one query (the sidebar reads
the parents of a page's forks this way), the same values ``get_conversation`` gives."""

from __future__ import annotations

from ikgui.storage import SqliteStore, listing
from tests.storage.conftest import BOTH

from .helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def test_get_conversations_gives_those_that_exist_as_get_conversation_does(
    store: SqliteStore,
) -> None:
    add_conversation(store, "chat-root", tags=("work", "a"))
    add_conversation(store, "chat-fork", parent="chat-root", status="killed")
    add_conversation(store, "chat-bin", trashed_at=99.0)
    wanted = ["chat-fork", "chat-gone", "chat-root", "chat-bin", "chat-root"]
    found = store.get_conversations(wanted)
    assert sorted(found) == ["chat-bin", "chat-fork", "chat-root"]  # none for the missing
    for conv_id, conv in found.items():
        assert conv == store.get_conversation(conv_id)  # the same values, tags too
    assert found["chat-root"].tags == ("a", "work")
    assert store.get_conversations([]) == {}


def test_get_conversations_of_many_ids_reads_them_in_chunks(store: SqliteStore) -> None:
    count = listing.CHILDREN_CHUNK + 7
    with store.transaction():
        for n in range(count):
            add_conversation(store, f"chat-p{n:04d}", created_at=float(n))
    found = store.get_conversations([f"chat-p{n:04d}" for n in range(count)])
    assert len(found) == count
    assert found[f"chat-p{count - 1:04d}"] == store.get_conversation(f"chat-p{count - 1:04d}")

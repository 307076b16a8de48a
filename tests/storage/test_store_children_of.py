"""``Store.children_of``: the forks of many conversations in one query, as ``children``
gives them one conversation at a time (the sidebar reads a page's forks this way)."""

from __future__ import annotations

from ikgui.storage import SqliteStore, listing
from tests.storage.conftest import BOTH

from .helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def test_children_of_gives_each_parent_its_forks_oldest_first(store: SqliteStore) -> None:
    add_conversation(store, "chat-root", tags=("work",))
    add_conversation(store, "chat-late", parent="chat-root", created_at=30.0, status="killed")
    add_conversation(store, "chat-earl", parent="chat-root", created_at=10.0, trashed_at=99.0)
    add_conversation(store, "chat-mid1", parent="chat-root", created_at=20.0, tags=("b", "a"))
    add_conversation(store, "chat-gran", parent="chat-mid1", created_at=25.0)
    add_conversation(store, "chat-lone")
    wanted = ["chat-root", "chat-mid1", "chat-gran", "chat-lone", "chat-gone"]
    found = store.children_of(wanted)
    assert list(found) == wanted  # every one asked for is a key, in order
    for conv_id in wanted:
        assert found[conv_id] == store.children(conv_id)  # the same values, tags too
    assert [c.id for c in found["chat-root"]] == ["chat-earl", "chat-mid1", "chat-late"]
    assert found["chat-root"][1].tags == ("a", "b")
    assert store.children_of([]) == {}


def test_children_of_many_parents_reads_them_in_chunks(store: SqliteStore) -> None:
    count = listing.CHILDREN_CHUNK + 7
    with store.transaction():
        for n in range(count):
            add_conversation(store, f"chat-p{n:04d}", created_at=float(n))
            if n % 3 == 0:
                add_conversation(store, f"chat-f{n:04d}", parent=f"chat-p{n:04d}")
    found = store.children_of([f"chat-p{n:04d}" for n in range(count)])
    assert len(found) == count
    assert [n for n in range(count) if found[f"chat-p{n:04d}"]] == list(range(0, count, 3))
    assert found[f"chat-p{count - 1:04d}"] == store.children(f"chat-p{count - 1:04d}")

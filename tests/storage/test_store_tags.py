"""Tags across conversations: the match-all filter, counts, rename (merge) and delete.

These speak only through the Store port; ``test_store_contract`` runs them again on the
``MemoryStore``.
"""

from __future__ import annotations

from ikgui.storage import SqliteStore
from tests.storage.conftest import BOTH
from tests.storage.helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def _seed(store: SqliteStore) -> None:
    add_conversation(store, "chat-0001", tags=("work", "api"), updated_at=1.0)
    add_conversation(store, "chat-0002", tags=("work",), updated_at=2.0)
    add_conversation(store, "chat-0003", tags=("api", "ideas"), updated_at=3.0)
    add_conversation(store, "chat-0004", tags=("work", "api", "ideas"), updated_at=4.0)
    add_conversation(store, "chat-0005", tags=("work", "api"), updated_at=5.0, trashed_at=9.0)


def _ids(rows: list) -> list[str]:  # type: ignore[type-arg]
    return [c.id for c in rows]


def test_a_listing_by_several_tags_matches_all_of_them(store: SqliteStore) -> None:
    _seed(store)
    assert _ids(store.list_conversations(tags=["work", "api"])) == ["chat-0004", "chat-0001"]
    assert _ids(store.list_conversations(tags=["WORK", "ideas", "api"])) == ["chat-0004"]
    assert _ids(store.list_conversations(tag="ideas", tags=["work"])) == ["chat-0004"]
    assert _ids(store.list_conversations(tags=["work", "api"], trashed=True)) == ["chat-0005"]
    assert _ids(store.list_conversations(tags=["work", "nope"])) == []
    assert _ids(store.list_conversations(1, tags=["work", "api"], before=(4.0, "chat-0004"))) == [
        "chat-0001"
    ]


def test_tag_counts_count_conversations_within_a_filter(store: SqliteStore) -> None:
    _seed(store)
    assert store.tag_counts() == [("api", 3), ("ideas", 2), ("work", 3)]
    assert store.tag_counts(["work"]) == [("api", 2), ("ideas", 1), ("work", 3)]
    assert store.tag_counts(["work", "ideas"]) == [("api", 1), ("ideas", 1), ("work", 1)]
    assert store.tag_counts(trashed=True) == [("api", 1), ("work", 1)]
    assert store.tag_counts(trashed=None) == [("api", 4), ("ideas", 2), ("work", 4)]


def test_renaming_a_tag_changes_every_conversation_including_the_trash(
    store: SqliteStore,
) -> None:
    _seed(store)
    assert store.rename_tag("work", "job") == 4
    assert store.tag_counts(trashed=None) == [("api", 4), ("ideas", 2), ("job", 4)]
    got = store.get_conversation("chat-0005")
    assert got is not None and got.tags == ("api", "job")
    assert store.rename_tag("nothing", "else") == 0
    assert store.all_tags() == ["api", "ideas", "job"]


def test_renaming_onto_a_tag_in_use_merges_without_duplicates(store: SqliteStore) -> None:
    _seed(store)
    assert store.rename_tag("ideas", "api") == 2
    assert store.tag_counts(trashed=None) == [("api", 4), ("work", 4)]
    got = store.get_conversation("chat-0004")
    assert got is not None and got.tags == ("api", "work")
    got = store.get_conversation("chat-0003")
    assert got is not None and got.tags == ("api",)


def test_deleting_a_tag_removes_it_everywhere_and_keeps_the_rest(store: SqliteStore) -> None:
    _seed(store)
    before = {c.id: c.updated_at for c in store.list_conversations()}
    assert store.delete_tag("api") == 4
    assert store.tag_counts(trashed=None) == [("ideas", 2), ("work", 4)]
    assert store.delete_tag("api") == 0
    assert {c.id: c.updated_at for c in store.list_conversations()} == before  # order kept

"""Tags across conversations: the match-all filter, counts, rename (merge) and delete.

These speak only through the Store port; ``test_store_contract`` runs them again on the
``MemoryStore``.
"""

from __future__ import annotations

from ikgui.domain.library import conversations as library
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


def _tags(store: SqliteStore) -> dict[str, tuple[str, ...]]:
    convs = store.list_conversations(trashed=False) + store.list_conversations(trashed=True)
    return {c.id: c.tags for c in sorted(convs, key=lambda c: c.id)}


def test_a_merge_is_undone_exactly_on_the_conversations_it_changed(store: SqliteStore) -> None:
    """Issue 20, item 5: "ideas" merged into "api" and undone. chat-0003 and chat-0004 had
    both: they keep "api" and get "ideas" back; no conversation that had only "api" gets
    "ideas"; what was tagged between the merge and the undo stays."""
    _seed(store)
    before = _tags(store)
    edit = library.rename_tag(store, "ideas", "api")
    assert edit.merging and edit.count == 2
    assert edit.moved == () and edit.merged == ("chat-0003", "chat-0004")
    assert library.undo_tag_edit(store, edit) == 2
    assert _tags(store) == before

    edit = library.rename_tag(store, "work", "job")  # a rename, the Trash included
    assert not edit.merging and edit.moved == tuple(f"chat-000{i}" for i in (1, 2, 4, 5))
    store.set_tags("chat-0003", ["api", "ideas", "job"])  # tagged meanwhile: kept
    library.undo_tag_edit(store, edit)
    assert _tags(store) == {**before, "chat-0003": ("api", "ideas", "job")}


def test_a_delete_is_undone_on_the_conversations_that_had_the_tag(store: SqliteStore) -> None:
    _seed(store)
    before = _tags(store)
    edit = library.delete_tag(store, "api")
    assert edit.new is None and edit.count == 4
    store.delete_conversations(["chat-0005"])  # gone for good since: skipped
    assert library.undo_tag_edit(store, edit) == 3
    del before["chat-0005"]
    assert _tags(store) == before


def test_tags_are_given_and_taken_by_id_in_batches(store: SqliteStore) -> None:
    _seed(store)
    assert store.tagged("ideas") == ["chat-0003", "chat-0004"]
    many = [f"chat-{i:04d}" for i in range(1, 1200)]  # more ids than one statement takes
    assert store.add_tag(many, "later") == 5  # only those that exist
    assert store.add_tag(many, "later") == 0
    assert store.tagged("later") == [f"chat-000{i}" for i in range(1, 6)]
    assert store.remove_tag(["chat-0002", "chat-0004", "chat-9999"], "later") == 2
    assert store.tagged("later") == ["chat-0001", "chat-0003", "chat-0005"]

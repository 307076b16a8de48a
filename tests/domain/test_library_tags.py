"""Tags across conversations in the domain (issue 12, items 5 and 6), on the MemoryStore:
rename and merge apply the one tag rule, unknown tags are refused, a selection is
retagged or trashed in one transaction, and the conversation on screen follows."""

from __future__ import annotations

import pytest

from ikgui.domain.errors import UserError
from ikgui.domain.events import Conversation
from ikgui.domain.library import conversations as library
from tests.support.memstore import MemoryStore


def _store() -> MemoryStore:
    store = MemoryStore()
    for cid, tags in (("chat-aaaa", ("work",)), ("chat-bbbb", ("work", "api")), ("chat-cccc", ())):
        store.insert_conversation(Conversation(id=cid, tags=tags, created_at=1.0, updated_at=1.0))
    return store


def test_rename_normalizes_both_names_and_merges() -> None:
    store = _store()
    assert library.rename_tag(store, "#WORK", " Api ").count == 2
    assert store.tag_counts() == [("api", 2)]
    with pytest.raises(UserError, match="No conversation has the tag 'work'"):
        library.rename_tag(store, "work", "job")
    with pytest.raises(UserError, match="Invalid tag"):
        library.rename_tag(store, "api", "two words")
    assert store.tag_counts() == [("api", 2)]


def test_delete_refuses_an_unused_tag() -> None:
    store = _store()
    assert library.delete_tag(store, "Work").count == 2
    with pytest.raises(UserError):
        library.delete_tag(store, "work")
    assert store.tag_counts() == [("api", 1)]


def test_a_selection_is_retagged_or_trashed_all_or_nothing() -> None:
    store = _store()
    changed = library.retag_many(store, ["chat-aaaa", "chat-cccc"], ["+idea", "-work"])
    assert [c.tags for c in changed] == [("idea",), ("idea",)]
    commits = store.commits
    with pytest.raises(UserError):
        library.retag_many(store, ["chat-aaaa", "chat-nope"], ["+later"])
    assert store.commits == commits  # nothing of it was written
    assert store.get_conversation("chat-aaaa").tags == ("idea",)  # type: ignore[union-attr]
    gone = library.trash_many(store, ["chat-aaaa", "chat-bbbb"], now=5.0)
    assert [c.trashed_at for c in gone] == [5.0, 5.0]
    assert [c.id for c in store.list_conversations()] == ["chat-cccc"]


def test_a_selection_is_pinned_or_unpinned_all_or_nothing() -> None:
    store = _store()
    pinned = library.pin(store, ["chat-aaaa", "chat-cccc"])
    assert [(c.id, c.pinned) for c in pinned] == [("chat-aaaa", True), ("chat-cccc", True)]
    commits = store.commits
    with pytest.raises(UserError, match="chat-nope"):
        library.pin(store, ["chat-bbbb", "chat-nope"])
    assert store.commits == commits
    assert [c.id for c in store.list_conversations(pinned=True)] == ["chat-cccc", "chat-aaaa"]
    assert [c.pinned for c in library.unpin(store, ["chat-aaaa"])] == [False]
    assert [c.id for c in store.list_conversations(pinned=True)] == ["chat-cccc"]

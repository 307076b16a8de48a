"""The in-memory store of the domain tests keeps the Store port's contract.

``tests/support/memstore.py`` stands in for SQLite in ``tests/domain``. So that it
cannot drift from ``SqliteStore``, this module runs the storage tests that speak only
through the port (imported from their modules, where they run on SQLite) a second time
on a ``MemoryStore``, plus a few checks written for both stores at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from ikgui.domain.errors import NotFoundError, StorageError
from ikgui.domain.events import Conversation, Kind
from ikgui.domain.ports import Store
from ikgui.domain.session.session import Session
from tests.storage.conftest import open_kind
from tests.storage.helpers import add_conversation
from tests.storage.test_store_conversations import (
    test_add_usage_accumulates,
    test_children_are_direct_forks_oldest_first,
    test_delete_parent_and_children_together_or_detach_survivors,
    test_find_by_suffix_returns_sorted_matches,
    test_insert_and_get_round_trip_every_field,
    test_insert_rejects_an_unknown_status,
    test_last_conversation_skips_the_trash_and_filters_by_agent,
    test_missing_conversation,
    test_set_tags_replaces_and_normalizes,
    test_update_conversation_rejects_unknown_fields,
    test_update_conversation_sets_each_allowed_field,
    test_writes_to_a_missing_conversation_raise_not_found,
)
from tests.storage.test_store_events import (
    test_append_keeps_unicode_and_a_given_time,
    test_append_returns_the_stored_event_with_global_ids,
    test_append_to_a_missing_conversation_raises_and_stores_nothing,
    test_event_ranges,
    test_events_are_event_values,
    test_last_event_id,
    test_latest_clear,
    test_message_count_counts_only_user_and_assistant,
    test_tail_events_are_the_newest_own_events_oldest_first,
    test_unfinished_replies,
    test_update_event_replaces_content_and_data,
)
from tests.storage.test_store_listing import (
    test_agent_tag_and_trash_filters,
    test_appending_moves_a_conversation_to_the_top,
    test_keyset_paging_visits_everything_once,
    test_listing_carries_counts_and_tags,
    test_newest_first_with_id_breaking_ties,
    test_restoring_from_the_trash,
)
from tests.storage.test_store_search import (
    test_a_title_match_ranks_higher,
    test_arbitrary_text_never_errors,
    test_diacritics_and_case_are_ignored,
    test_only_text_kinds_are_indexed,
    test_operators_are_plain_words,
    test_punctuation_only_finds_nothing,
    test_ranking_title_then_match_count_then_newest,
    test_results_are_grouped_and_limited,
    test_snippet_is_short_and_around_the_match,
    test_the_newest_matching_message_is_reported,
    test_title_only_match,
    test_trashed_conversations_are_excluded,
    test_two_words_must_both_match,
    test_user_text_is_never_query_syntax,
)
from tests.storage.test_store_stamp import (
    test_tail_stamp_changes_as_a_reply_grows_and_finishes,
    test_tail_stamp_names_the_newest_own_events_newest_first,
)
from tests.storage.test_store_tags import (
    test_a_delete_is_undone_on_the_conversations_that_had_the_tag,
    test_a_listing_by_several_tags_matches_all_of_them,
    test_a_merge_is_undone_exactly_on_the_conversations_it_changed,
    test_deleting_a_tag_removes_it_everywhere_and_keeps_the_rest,
    test_renaming_a_tag_changes_every_conversation_including_the_trash,
    test_renaming_onto_a_tag_in_use_merges_without_duplicates,
    test_tag_counts_count_conversations_within_a_filter,
    test_tags_are_given_and_taken_by_id_in_batches,
)
from tests.support.memstore import MemoryStore

# Collected here again: these run on the ``store`` fixture below (a MemoryStore).
PORT_TESTS = [
    test_a_delete_is_undone_on_the_conversations_that_had_the_tag,
    test_a_merge_is_undone_exactly_on_the_conversations_it_changed,
    test_tags_are_given_and_taken_by_id_in_batches,
    test_add_usage_accumulates,
    test_children_are_direct_forks_oldest_first,
    test_delete_parent_and_children_together_or_detach_survivors,
    test_find_by_suffix_returns_sorted_matches,
    test_insert_and_get_round_trip_every_field,
    test_insert_rejects_an_unknown_status,
    test_last_conversation_skips_the_trash_and_filters_by_agent,
    test_missing_conversation,
    test_set_tags_replaces_and_normalizes,
    test_update_conversation_rejects_unknown_fields,
    test_update_conversation_sets_each_allowed_field,
    test_writes_to_a_missing_conversation_raise_not_found,
    test_append_keeps_unicode_and_a_given_time,
    test_append_returns_the_stored_event_with_global_ids,
    test_append_to_a_missing_conversation_raises_and_stores_nothing,
    test_event_ranges,
    test_events_are_event_values,
    test_last_event_id,
    test_latest_clear,
    test_message_count_counts_only_user_and_assistant,
    test_unfinished_replies,
    test_update_event_replaces_content_and_data,
    test_tail_events_are_the_newest_own_events_oldest_first,
    test_tail_stamp_names_the_newest_own_events_newest_first,
    test_tail_stamp_changes_as_a_reply_grows_and_finishes,
    test_agent_tag_and_trash_filters,
    test_appending_moves_a_conversation_to_the_top,
    test_keyset_paging_visits_everything_once,
    test_listing_carries_counts_and_tags,
    test_newest_first_with_id_breaking_ties,
    test_restoring_from_the_trash,
    test_a_title_match_ranks_higher,
    test_arbitrary_text_never_errors,
    test_diacritics_and_case_are_ignored,
    test_only_text_kinds_are_indexed,
    test_operators_are_plain_words,
    test_punctuation_only_finds_nothing,
    test_ranking_title_then_match_count_then_newest,
    test_results_are_grouped_and_limited,
    test_snippet_is_short_and_around_the_match,
    test_the_newest_matching_message_is_reported,
    test_title_only_match,
    test_trashed_conversations_are_excluded,
    test_two_words_must_both_match,
    test_user_text_is_never_query_syntax,
    test_a_listing_by_several_tags_matches_all_of_them,
    test_deleting_a_tag_removes_it_everywhere_and_keeps_the_rest,
    test_renaming_a_tag_changes_every_conversation_including_the_trash,
    test_renaming_onto_a_tag_in_use_merges_without_duplicates,
    test_tag_counts_count_conversations_within_a_filter,
]


@pytest.fixture
def store() -> MemoryStore:
    """The imported tests above run on this store here (on SQLite in their modules)."""
    return MemoryStore()


@pytest.fixture(scope="module")
def shared_store() -> MemoryStore:
    memory = MemoryStore()
    add_conversation(memory, "chat-aaaa", title="Anything: at all?")  # type: ignore[arg-type]
    memory.append_event("chat-aaaa", "user", 'quotes " stars * NEAR(a b) col:x -y ^z (')
    return memory


# -- checks written for both stores -------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
def either(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    with open_kind(request.param, request, tmp_path / "ikgui.db") as real:
        yield real


def _add(store: Store, conv_id: str, **fields: object) -> None:
    conv = Conversation(id=conv_id, created_at=1000.0, updated_at=1000.0, **fields)  # type: ignore[arg-type]
    store.insert_conversation(conv)


def test_transactions_commit_together_nest_and_undo(either: Store) -> None:
    _add(either, "chat-aaaa")
    with either.transaction():
        either.append_event("chat-aaaa", "user", "one")
        with either.transaction():
            either.append_event("chat-aaaa", "user", "two")
    with pytest.raises(RuntimeError), either.transaction():
        either.append_event("chat-aaaa", "user", "three")
        either.update_conversation("chat-aaaa", title="lost")
        either.set_tags("chat-aaaa", ["lost"])
        _add(either, "chat-lost")
        raise RuntimeError("undo all")
    with either.transaction():
        either.append_event("chat-aaaa", "user", "five")
        with pytest.raises(RuntimeError), either.transaction():
            either.append_event("chat-aaaa", "user", "six")
            raise RuntimeError("undo the inner block only")
    assert [e.content for e in either.events("chat-aaaa")] == ["one", "two", "five"]
    conv = either.get_conversation("chat-aaaa")
    assert conv is not None and (conv.title, conv.tags, conv.message_count) == (None, (), 3)
    assert not either.conversation_exists("chat-lost") and either.all_tags() == []


def test_a_failed_write_in_a_transaction_undoes_the_block(either: Store) -> None:
    _add(either, "chat-aaaa")
    with pytest.raises(NotFoundError), either.transaction():
        either.append_event("chat-aaaa", "user", "kept only if the block succeeds")
        either.append_event("chat-none", "user", "no such conversation")
    assert either.events("chat-aaaa") == []


def test_a_taken_id_or_a_missing_parent_is_a_storage_error(either: Store) -> None:
    _add(either, "chat-aaaa", title="first")
    with pytest.raises(StorageError):
        _add(either, "chat-aaaa", title="second")
    with pytest.raises(StorageError):
        _add(either, "chat-kid1", parent="chat-none")
    conv = either.get_conversation("chat-aaaa")
    assert conv is not None and conv.title == "first"
    assert not either.conversation_exists("chat-kid1")


def test_values_handed_out_are_copies(either: Store) -> None:
    _add(either, "chat-aaaa", title="stored")
    got = either.get_conversation("chat-aaaa")
    assert got is not None
    with pytest.raises(dataclasses.FrozenInstanceError):  # a value: nothing to change
        got.title = "changed by a caller"  # type: ignore[misc]
    event = either.append_event("chat-aaaa", "user", "x", {"n": [1]})
    event.data["n"].append(2)
    again = either.get_conversation("chat-aaaa")
    assert again is not None and (again.title, again.message_count) == ("stored", 1)
    assert either.events("chat-aaaa")[0].data == {"n": [1]}


def test_data_is_read_back_as_json_would_give_it(either: Store) -> None:
    _add(either, "chat-aaaa")
    event = either.append_event("chat-aaaa", "tool_call", "f()", {"args": (1, 2), "é": None})
    [loaded] = either.events("chat-aaaa")
    assert loaded.data == {"args": [1, 2], "é": None}
    assert loaded.data_json() == event.data_json() == '{"args": [1, 2], "é": null}'


def test_a_reply_counts_once_its_first_text_arrives(either: Store) -> None:
    _add(either, "chat-aaaa")
    reply = either.append_event("chat-aaaa", "assistant", "", {"streaming": True})
    counts = [either.get_conversation("chat-aaaa").message_count]  # type: ignore[union-attr]
    either.update_event(reply.id, "Hel", {"streaming": True})
    counts.append(either.get_conversation("chat-aaaa").message_count)  # type: ignore[union-attr]
    either.update_event(reply.id, "", {"failed": True})
    counts.append(either.get_conversation("chat-aaaa").message_count)  # type: ignore[union-attr]
    assert counts == [0, 1, 0]


def test_a_tag_rename_is_one_transaction(either: Store) -> None:
    _add(either, "chat-aaaa", tags=("old",))
    _add(either, "chat-bbbb", tags=("old", "keep"))
    try:
        with either.transaction():
            assert either.rename_tag("old", "new") == 2
            assert either.delete_tag("keep") == 1
            raise RuntimeError("undo")
    except RuntimeError:
        pass
    assert either.tag_counts() == [("keep", 1), ("old", 2)]


def test_a_send_lock_has_one_holder_at_a_time(either: Store) -> None:
    first, second = either.send_lock("chat-ab12"), either.send_lock("chat-ab12")
    other = either.send_lock("chat-cd34")
    assert first.acquire()
    assert not second.acquire()
    assert first.acquire()  # its holder taking it again still holds it
    assert other.acquire()
    first.release()
    assert second.acquire()
    second.release()
    other.release()
    first.release()  # releasing a lock not held changes nothing
    assert other.acquire()
    other.release()


def test_pinning_flags_lists_and_keeps_the_order_time(either: Store) -> None:
    _add(either, "chat-aaaa")
    either.insert_conversation(Conversation(id="chat-bbbb", created_at=1.0, updated_at=2000.0))
    either.insert_conversation(
        Conversation(id="chat-cccc", created_at=1.0, updated_at=3000.0, trashed_at=3000.0)
    )
    assert either.set_pinned(["chat-aaaa", "chat-cccc", "chat-aaaa"], True) == 2
    assert either.set_pinned(["chat-aaaa"], True) == 0  # already pinned
    conv = either.get_conversation("chat-aaaa")
    assert conv is not None and conv.pinned and conv.updated_at == 1000.0
    assert [c.id for c in either.list_conversations(pinned=True)] == ["chat-aaaa"]
    assert [c.id for c in either.list_conversations(pinned=False)] == ["chat-bbbb"]
    assert [c.id for c in either.list_conversations(pinned=True, trashed=True)] == ["chat-cccc"]
    assert [c.id for c in either.list_conversations()] == ["chat-bbbb", "chat-aaaa"]
    assert either.set_pinned(["chat-aaaa", "chat-cccc"], False) == 2
    assert either.list_conversations(pinned=True) == []


def test_pinning_a_missing_conversation_changes_nothing(either: Store) -> None:
    _add(either, "chat-aaaa")
    with pytest.raises(NotFoundError):
        either.set_pinned(["chat-aaaa", "chat-none"], True)
    conv = either.get_conversation("chat-aaaa")
    assert conv is not None and not conv.pinned


def test_pinning_is_undone_with_its_transaction(either: Store) -> None:
    _add(either, "chat-aaaa")
    try:
        with either.transaction():
            either.set_pinned(["chat-aaaa"], True)
            raise RuntimeError("undo")
    except RuntimeError:
        pass
    assert either.list_conversations(pinned=True) == []


def test_inherited_counts_are_the_ancestors_messages_up_to_the_fork_points(
    either: Store,
) -> None:
    """Issue 12 item 3: a fork's row says "12 msgs, 2 own"."""
    session = Session(either)
    session.append(Kind.USER, "one")
    session.append(Kind.ASSISTANT, "two")
    cut = session.append(Kind.USER, "three")
    session.append(Kind.ASSISTANT, "")  # an empty reply is not a message
    root = session.conversation.id
    child = session.fork().id  # carries 3
    session.append(Kind.USER, "own")
    deep = session.fork().id  # carries 3 + 1
    session.open(root)
    session.append(Kind.USER, "after the fork")
    early = session.fork(at_event=cut.id - 1).id  # carries "one", "two"
    session.open(root)
    empty = session.fork().id  # nothing of its own: its fork point is in root
    grand = session.fork().id  # through the empty one
    counts = either.inherited_counts([root, child, deep, early, grand, "chat-none"])
    assert counts == {root: 0, child: 3, deep: 4, early: 2, grand: 4, "chat-none": 0}
    assert either.inherited_counts([empty]) == {empty: 4}

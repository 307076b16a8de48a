"""One mutation path (issue 22, item 1), round two: every operation's change of a
conversation is told as one ``Changed`` (its new fields, the transcript change, the
aspects that changed), and ``apply`` writes the changes of fields itself, through the
write-behind queue, so on a full disk they wait and land with the rest."""

from __future__ import annotations

import dataclasses

import pytest

from ikgui.domain.events import STATUS_KILLED, Event, Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state import facts
from ikgui.domain.state.changes import Changes
from ikgui.domain.state.facts import Changed, Fact, TranscriptChange
from tests.support.counting import count_reads
from tests.support.memstore import MemoryStore


def listen(session: Session) -> list[Fact]:
    heard: list[Fact] = []
    session.subscribe(heard.append)
    return heard


def changes_heard(heard: list[Fact]) -> list[Changed]:
    return [f for f in heard if isinstance(f, Changed)]


def test_the_three_old_facts_are_gone() -> None:
    for old in ("EventAppended", "EventUpdated", "ConversationChanged"):
        assert not hasattr(facts, old)
    # What is left of StateReplaced is the first replay after a preview, not a change.
    assert facts.StateReplaced("c").deferred


def test_a_rename_of_the_open_conversation_from_the_library_is_one_change_and_no_read() -> None:
    store = MemoryStore()
    session = Session(store)
    session.append(Kind.USER, "hello")
    conv_id = session.conversation.id
    heard = listen(session)
    reads = count_reads(store)

    renamed = session.library.rename(conv_id, "  A  new   name ")

    (fact,) = heard
    assert isinstance(fact, Changed) and fact.conversation_id == conv_id
    assert fact.aspects == {"title"} and not fact.appended and not fact.updated
    assert fact.conversation is not None and fact.conversation.title == "A new name"
    assert fact.conversation == store.get_conversation(conv_id) == renamed
    assert sum(reads.calls.values()) == 1  # (the one just above)


def test_a_send_is_one_change_with_its_transcript_change() -> None:
    session = Session(MemoryStore())
    heard = listen(session)
    user = session.append(Kind.USER, "the first message titles it")
    (fact,) = heard
    assert isinstance(fact, Changed)
    assert fact.appended == ((user, TranscriptChange((user,))),)
    assert fact.aspects == {"events", "title"}
    assert fact.conversation == session.conversation


def test_a_library_change_of_another_conversation_carries_its_row() -> None:
    store = MemoryStore()
    session = Session(store)
    session.append(Kind.USER, "there")
    other = session.conversation.id
    session.new_conversation()
    heard = listen(session)
    session.library.pin([other])
    (fact,) = heard
    assert isinstance(fact, Changed) and fact.conversation_id == other
    assert fact.aspects == {"pinned"}
    assert fact.conversation == store.get_conversation(other)
    assert fact.conversation is not None and fact.conversation.pinned


def test_a_selection_changed_at_once_is_one_write_and_a_change_each() -> None:
    store = MemoryStore()
    session = Session(store)
    ids = []
    for text in ("one", "two", "three"):
        session.new_conversation()
        session.append(Kind.USER, text)
        ids.append(session.conversation.id)
    heard = listen(session)
    session.library.retag_many(ids, ["+work"])
    told = changes_heard(heard)
    assert [f.conversation_id for f in told] == ids
    assert all(f.aspects == {"tags"} and f.conversation is not None for f in told)
    assert session.conversation.tags == ("work",)


def test_usage_is_told_as_a_change_of_usage() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "hello")
    heard = listen(session)
    session.current.add_usage(session.conversation.id, 10, 20, 0.5)
    (fact,) = heard
    assert isinstance(fact, Changed) and fact.aspects == {"usage"}
    assert fact.conversation is not None and fact.conversation.tokens_output == 20


def test_the_values_handed_out_are_frozen() -> None:
    session = Session(MemoryStore())
    heard = listen(session)
    session.append(Kind.USER, "hello")
    (fact,) = heard
    assert isinstance(fact, Changed)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fact.aspects = frozenset()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Changes("c").conversation_id = "d"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        TranscriptChange().collapsed = None  # type: ignore[misc]
    session.mark("m")
    (mark,) = session.state.marks
    with pytest.raises(dataclasses.FrozenInstanceError):
        mark.context_len = 0  # type: ignore[misc]


def test_an_event_is_not_folded_twice_by_a_change_that_only_tells() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "one")
    before = list(session.state.scrollback)
    session.current.apply(Changes(session.conversation.id, also=frozenset({"events"})))
    assert session.state.scrollback == before
    assert all(isinstance(e, Event) for e in before)


def test_a_kill_tells_the_parent_its_event_and_each_closed_branch_its_status() -> None:
    store = MemoryStore()
    session = Session(store)
    session.append(Kind.USER, "root")
    root = session.conversation.id
    child = session.fork()
    session.append(Kind.USER, "in the branch")
    grandchild = session.fork()
    heard = listen(session)
    session.kill(child.id, cascade=True)
    told = {f.conversation_id: f for f in changes_heard(heard)}
    assert told[child.id].aspects == {"status"} == told[grandchild.id].aspects
    assert session.conversation.id == root  # (it was closed: its parent is open now)
    assert told[root].aspects == {"events"}
    stored = store.get_conversation(grandchild.id)
    assert stored is not None and stored.status == STATUS_KILLED


def test_the_demo_s_usage_goes_through_apply_and_shows_at_once() -> None:
    """The demo is written through the session like everything else: its last
    conversation's usage is told (``usage``) and the open conversation shows what the
    store holds, without reading its row again."""
    from ikgui.domain.session.demo import build_demo

    store = MemoryStore()
    session = Session(store)
    heard = listen(session)
    first = build_demo(session)
    stored = store.get_conversation(first)
    assert stored is not None and session.conversation.id == first
    assert session.conversation.tokens_input == stored.tokens_input == 1236
    assert any("usage" in f.aspects for f in changes_heard(heard))


def test_a_dead_writer_s_reply_is_settled_by_the_one_writer_after_what_waits() -> None:
    """A reply another process left growing is marked interrupted through ``apply``:
    while this session's changes wait to be written (a full disk) it is left alone —
    no error each time the window looks — and settled once they are written."""
    from ikgui.domain.session import elsewhere

    store = MemoryStore()
    session = Session(store)
    session.append(Kind.USER, "a question")
    conv_id = session.conversation.id
    seen = session.state.scrollback[-1].id
    other = store.append_event(conv_id, "assistant", "half an", {"streaming": True, "owner": 1})
    assert elsewhere.take_in(session.current, seen)
    store.read_only = "the disk is full"
    session.rename(conv_id, "waits")
    assert len(session.writes) == 1

    assert not elsewhere.settle_abandoned(session.current)  # (no StorageError either)

    store.read_only = None
    assert session.writes.flush()
    heard = listen(session)
    assert elsewhere.settle_abandoned(session.current)
    stored = store.get_event(other.id)
    assert stored is not None and stored.data.get("interrupted") is True
    assert session.state.scrollback[-1].data.get("interrupted") is True
    (fact,) = changes_heard(heard)
    assert fact.elsewhere and [e.id for e in fact.updated] == [other.id]

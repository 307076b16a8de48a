"""``ikgui.domain.session.elsewhere``: what another process writes to the open conversation is
taken into its state in place, and that state is the one a replay would give."""

from __future__ import annotations

import os

import pytest

from ikgui.domain.events import Kind
from ikgui.domain.session import elsewhere, writes
from ikgui.domain.session.session import Session
from ikgui.domain.state.facts import Changed, Fact
from ikgui.domain.state.replay import ReplayState, replay_conversation
from tests.support.memstore import MemoryStore

GROWING = {"model": "m", "streaming": True, "owner": os.getpid() + 1}


def comparable(state: ReplayState) -> tuple[object, ...]:
    return (
        [(e.id, e.content, e.data) for e in state.context],
        [(e.id, e.content, e.data) for e in state.scrollback],
        state.working_prompt,
        state.prompt_before,
    )


@pytest.fixture
def opened() -> tuple[Session, MemoryStore, list[Fact]]:
    store = MemoryStore()
    session = Session(store)
    session.append(Kind.USER, "hello")
    session.append(Kind.ASSISTANT, "hi", {"model": "m"})
    facts: list[Fact] = []
    session.subscribe(facts.append)
    return session, store, facts


def test_a_growing_and_finished_reply_is_patched_in_without_a_replay(
    opened: tuple[Session, MemoryStore, list[Fact]], monkeypatch: pytest.MonkeyPatch
) -> None:
    session, store, facts = opened
    conv = session.conversation.id
    replays: list[str] = []
    original = writes.replayed
    monkeypatch.setattr(writes, "replayed", lambda s, c: replays.append(c) or original(s, c))
    shown = store.last_event_id(conv)
    user = store.append_event(conv, Kind.USER, "from elsewhere")
    reply = store.append_event(conv, Kind.ASSISTANT, "", GROWING)
    assert elsewhere.take_in(session.current, shown)
    (fact,) = facts  # one operation: one change
    assert isinstance(fact, Changed) and fact.elsewhere
    assert [e.id for e in fact.events] == [user.id, reply.id]
    for text in ("Par", "Partial", "Partial text"):
        store.update_event(reply.id, text, GROWING)
        assert elsewhere.take_in(session.current, reply.id)
        last = facts[-1]
        assert isinstance(last, Changed) and last.elsewhere and last.aspects == {"events"}
        assert [e.content for e in last.updated] == [text] and last.conversation is None
        assert session.state.scrollback[-1].content == text
        assert elsewhere.written_elsewhere(session.state.scrollback[-1])
    count = len(facts)
    assert elsewhere.take_in(session.current, reply.id)  # nothing changed: nothing said
    assert len(facts) == count
    final = "Partial text, done.\n\n```prompt\na red fox\n```"
    store.update_event(reply.id, final, {"model": "m", "prompt": "a red fox"})
    assert elsewhere.take_in(session.current, reply.id)
    assert not elsewhere.written_elsewhere(session.state.scrollback[-1])
    assert replays == []
    assert comparable(session.state) == comparable(replay_conversation(store, conv))
    assert session.state.working_prompt == "a red fox"


def test_new_events_are_folded_in_as_a_replay_gives_them(
    opened: tuple[Session, MemoryStore, list[Fact]],
) -> None:
    session, store, _ = opened
    conv = session.conversation.id
    shown = store.last_event_id(conv)
    mark = store.append_event(conv, Kind.MARK, "", {"label": "here"})
    store.append_event(conv, Kind.USER, "after the mark")
    store.append_event(conv, Kind.REWIND, "", {"target_event_id": mark.id})
    assert elsewhere.take_in(session.current, shown)
    assert comparable(session.state) == comparable(replay_conversation(store, conv))


def test_what_it_cannot_take_in_is_left_to_a_replay(
    opened: tuple[Session, MemoryStore, list[Fact]],
) -> None:
    session, store, _ = opened
    conv = session.conversation.id
    shown = store.last_event_id(conv)
    for i in range(elsewhere.MANY + 1):  # an import, say
        store.append_event(conv, Kind.USER, f"message {i}")
    assert not elsewhere.take_in(session.current, shown)
    assert not elsewhere.take_in(session.current, 10**9)  # shows what the store lacks


def test_only_another_process_s_streaming_reply_is_written_elsewhere(
    opened: tuple[Session, MemoryStore, list[Fact]],
) -> None:
    session, store, _ = opened
    conv = session.conversation.id
    mine = store.append_event(conv, Kind.ASSISTANT, "", {"streaming": True, "owner": os.getpid()})
    theirs = store.append_event(conv, Kind.ASSISTANT, "", GROWING)
    done = store.append_event(conv, Kind.ASSISTANT, "x", {"model": "m"})
    unknown = store.append_event(conv, Kind.ASSISTANT, "", {"streaming": True})  # no owner
    found = [elsewhere.written_elsewhere(e) for e in (mine, theirs, done, unknown)]
    assert found == [False, True, False, False]

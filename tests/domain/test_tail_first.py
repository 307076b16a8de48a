"""A preview of a conversation from the end of its log (the window's first paint) while
the session opens it with its replay deferred: the tail is used only when it ends the
transcript as the full replay does, and it is never the session's state (issue 22 item
3): the session's state is the full replay, made when first read and announced."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ikgui.domain.events import Conversation, Event, Kind
from ikgui.domain.session.elsewhere import take_in
from ikgui.domain.session.session import Session
from ikgui.domain.session.tail_first import ends_alike, preview, tail_state
from ikgui.domain.state.facts import Fact, StateReplaced
from ikgui.domain.state.reading import visible
from ikgui.domain.state.replay import replay_conversation
from tests.domain.test_session import snapshot
from tests.support.memstore import MemoryStore

LIMIT = 6


def add(store: MemoryStore, conv_id: str, **fields: Any) -> Conversation:
    conv = Conversation(id=conv_id, created_at=1.0, updated_at=1.0, **fields)
    store.insert_conversation(conv)
    return conv


def chat(store: MemoryStore, conv_id: str, count: int, start: int = 0) -> list[Event]:
    return [
        store.append_event(conv_id, Kind.USER if n % 2 == 0 else Kind.ASSISTANT, f"m{n}")
        for n in range(start, start + count)
    ]


def ids(events: list[Event]) -> list[int]:
    return [e.id for e in events]


def test_a_long_root_is_previewed_from_its_tail_and_replayed_in_full_when_read() -> None:
    store = MemoryStore()
    conv = add(store, "chat-aaaa")
    chat(store, conv.id, 3)
    store.append_event(conv.id, Kind.COMMAND, "/model m2", {"command": "model", "model": "m2"})
    store.append_event(conv.id, Kind.PROMPT_EDIT, "set", {"prompt": "a fox"})
    mark = store.append_event(conv.id, Kind.MARK, "", {"label": "m"})
    chat(store, conv.id, 20, start=3)
    full = replay_conversation(store, conv.id)
    shown = preview(store, conv.id, LIMIT)
    assert shown is not None and shown.conversation.id == conv.id
    assert ids(list(shown.scrollback)) == ids(full.scrollback[-LIMIT:])

    session = Session(store)
    facts: list[Fact] = []
    session.subscribe(facts.append)
    read: list[str] = []
    events = store.events
    store.events = lambda *a, **k: read.append("events") or events(*a, **k)  # type: ignore[method-assign]
    session.current.open(conv.id, replay_later=True)
    assert session.conversation.id == conv.id and session.saved
    assert read == [] and not any(isinstance(f, StateReplaced) for f in facts)  # not yet
    # Its state is the conversation's, not the preview's: replayed when first read.
    assert session.state.working_prompt == "a fox" and session.state.model == "m2"
    assert snapshot(session.state) == snapshot(full)
    assert [m.event_id for m in session.state.marks] == [mark.id]
    replayed = [f for f in facts if isinstance(f, StateReplaced)]
    assert replayed == [StateReplaced(conv.id, deferred=True)]  # said once
    assert ends_alike(shown, session.state)
    session.state  # noqa: B018
    assert len([f for f in facts if isinstance(f, StateReplaced)]) == 1


def test_a_send_before_the_replay_goes_to_the_whole_conversation() -> None:
    store = MemoryStore()
    conv = add(store, "chat-aaaa")
    chat(store, conv.id, 20)
    session = Session(store)
    session.current.open(conv.id, replay_later=True)
    session.mark("here")  # an operation reads the state: the full replay
    assert len(session.state.context) == 20
    assert snapshot(session.state) == snapshot(replay_conversation(store, conv.id))


@pytest.mark.parametrize(
    "last",
    [
        (Kind.CLEAR, "", {}),
        (Kind.ASSISTANT, "", {"failed": True}),  # replay leaves it out
        ("a_kind_from_a_newer_version", "?", {}),
    ],
)
def test_a_tail_that_cuts_or_hides_items_is_not_used(last: tuple[str, str, dict]) -> None:
    store = MemoryStore()
    conv = add(store, "chat-aaaa")
    chat(store, conv.id, 10)
    store.append_event(conv.id, *last)
    chat(store, conv.id, LIMIT - 2, start=10)
    assert tail_state(store, conv, LIMIT) is None
    assert tail_state(store, conv, LIMIT - 2) is not None  # past it: used


def test_a_tail_with_a_rewind_is_not_used() -> None:
    store = MemoryStore()
    conv = add(store, "chat-aaaa")
    chat(store, conv.id, 10)
    mark = store.append_event(conv.id, Kind.MARK, "", {"label": "m"})
    chat(store, conv.id, 10, start=10)
    store.append_event(conv.id, Kind.REWIND, "", {"target_event_id": mark.id})
    chat(store, conv.id, 2, start=20)
    assert preview(store, conv.id, LIMIT) is None  # the caller replays now
    assert preview(store, "chat-none", LIMIT) is None


def test_a_fork_uses_its_tail_only_when_its_own_events_fill_it() -> None:
    store = MemoryStore()
    parent = add(store, "chat-aaaa")
    point = chat(store, parent.id, 10)[-1].id
    child = add(store, "chat-bbbb", parent=parent.id, fork_event_id=point)
    store.append_event(child.id, Kind.FORK, f"Forked from {parent.id}", {"role": "child"})
    chat(store, child.id, LIMIT - 2)
    assert tail_state(store, child, LIMIT) is None  # the parent's events come first
    chat(store, child.id, 1, start=LIMIT - 2)
    state = tail_state(store, child, LIMIT)
    assert state is not None
    full = replay_conversation(store, child.id)
    assert ids(state.scrollback) == ids(full.scrollback[-LIMIT:])


def test_a_root_shorter_than_the_tail_is_its_whole_replay() -> None:
    store = MemoryStore()
    conv = add(store, "chat-aaaa")
    chat(store, conv.id, 3)
    state = tail_state(store, conv, LIMIT)
    assert state is not None and snapshot(state) == snapshot(replay_conversation(store, conv.id))


def test_the_replay_says_when_another_writer_added_to_the_end() -> None:
    store = MemoryStore()
    conv = add(store, "chat-aaaa")
    chat(store, conv.id, 20)
    shown = preview(store, conv.id, LIMIT)
    assert shown is not None
    session = Session(store)
    session.current.open(conv.id, replay_later=True)
    store.append_event(conv.id, Kind.USER, "from ikgui run")
    assert not ends_alike(shown, session.state)
    assert session.state.scrollback[-1].content == "from ikgui run"


def test_what_another_process_wrote_before_the_replay_is_taken_in_once() -> None:
    store = MemoryStore()
    conv = add(store, "chat-aaaa")
    chat(store, conv.id, 20)
    session = Session(store)
    session.current.open(conv.id, replay_later=True)
    shown_upto = store.last_event_id(conv.id)
    store.append_event(conv.id, Kind.USER, "from ikgui run")
    assert take_in(session.current, shown_upto)
    assert snapshot(session.state) == snapshot(replay_conversation(store, conv.id))


def test_a_session_that_moved_on_before_the_replay_never_replays_the_first() -> None:
    store = MemoryStore()
    for conv_id in ("chat-aaaa", "chat-bbbb"):
        add(store, conv_id)
        chat(store, conv_id, 20)
    session = Session(store)
    facts: list[Fact] = []
    session.subscribe(facts.append)
    session.current.open("chat-aaaa", replay_later=True)
    session.open("chat-bbbb")
    assert session.conversation.id == "chat-bbbb"
    assert snapshot(session.state) == snapshot(replay_conversation(store, "chat-bbbb"))
    assert not any(isinstance(f, StateReplaced) for f in facts)


KINDS = st.sampled_from(
    [Kind.USER, Kind.ASSISTANT, Kind.MARK, Kind.REWIND, Kind.CLEAR, Kind.COMMAND, "failed"]
)


@settings(max_examples=150, deadline=None)
@given(
    parent_kinds=st.lists(KINDS, max_size=12),
    kinds=st.lists(KINDS, max_size=16),
    fork=st.booleans(),
    limit=st.integers(min_value=1, max_value=8),
)
def test_a_tail_it_uses_is_the_end_of_the_full_replay(
    parent_kinds: list[str], kinds: list[str], fork: bool, limit: int
) -> None:
    store = MemoryStore()
    conv_id = "chat-aaaa"
    add(store, conv_id)
    if fork:
        write(store, conv_id, parent_kinds)
        point = store.last_event_id(conv_id)
        conv_id = "chat-bbbb"
        add(store, conv_id, parent="chat-aaaa", fork_event_id=point)
    write(store, conv_id, kinds)
    conv = store.get_conversation(conv_id)
    assert conv is not None
    state = tail_state(store, conv, limit)
    if state is None:
        return
    # The last ``limit`` items of the transcript, as the full replay has them: a whole
    # first screen (``limit`` is more than it shows), exactly as it ends.
    full = visible(replay_conversation(store, conv_id).scrollback)
    assert ids(visible(state.scrollback)) == ids(full[-limit:])


def write(store: MemoryStore, conv_id: str, kinds: list[str]) -> None:
    marks: list[int] = []
    for n, kind in enumerate(kinds):
        if kind == "failed":
            store.append_event(conv_id, Kind.ASSISTANT, "", {"failed": True})
        elif kind == Kind.MARK:
            marks.append(store.append_event(conv_id, kind, "", {"label": None}).id)
        elif kind == Kind.REWIND:
            target = marks[-1] if marks else 0
            store.append_event(conv_id, kind, "", {"target_event_id": target})
        else:
            store.append_event(conv_id, kind, f"e{n}", {"command": "x"})

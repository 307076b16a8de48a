"""The live session on the in-memory store: it must always equal a fresh replay.

(``MemoryStore`` keeps the Store port as SQLite does: tests/storage/test_store_contract.py.)
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.errors import UserError
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session, SessionEvent
from ikgui.domain.state.replay import ReplayState, replay_conversation
from tests.support.memstore import MemoryStore


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


def snapshot(state: ReplayState) -> tuple[object, ...]:
    return (
        [(e.id, e.content) for e in state.context],
        [(e.id, e.content) for e in state.scrollback],
        [
            (m.event_id, m.label, m.context_len, m.scrollback_len, m.working_prompt)
            for m in state.marks
        ],
        state.working_prompt,
        state.model,
        state.system_override,
    )


def test_first_user_message_titles_the_conversation(store: MemoryStore) -> None:
    session = Session(store)
    session.append(
        Kind.USER, "  Please   review this\ncode for me, it is quite long and has bugs  "
    )
    conv = store.get_conversation(session.conversation.id)
    assert conv is not None
    assert conv.title == "Please review this code for me, it is quite long a..."
    session.append(Kind.USER, "second message")
    assert store.get_conversation(conv.id).title == conv.title  # type: ignore[union-attr]


def test_auto_title_never_overwrites_a_user_title(store: MemoryStore) -> None:
    session = Session(store, registry=default_registry())
    session.registry.dispatch(session, "/title Mine")
    session.append(Kind.USER, "hello")
    assert store.get_conversation(session.conversation.id).title == "Mine"  # type: ignore[union-attr]


def test_several_edits_one_notice_unchanged_none(store: MemoryStore) -> None:
    session = Session(store)
    session.append(Kind.ASSISTANT, "Prompt: a cat", {"prompt": "a cat"})
    session.stage_prompt("a dog")
    session.stage_prompt("a dog in a hat")
    assert session.prompt_edited
    notice = session.commit_prompt()
    assert notice is not None and notice.content == '[user edited prompt to: "a dog in a hat"]'
    session.stage_prompt("a dog in a hat")
    assert not session.prompt_edited
    assert session.commit_prompt() is None
    session.stage_prompt("")
    empty = session.commit_prompt()
    assert empty is not None and empty.content == '[user edited prompt to: ""]'
    kinds = [e.kind for e in store.events(session.conversation.id)]
    assert kinds.count("prompt_edit") == 2


def test_trailing_prompt_is_never_stored(store: MemoryStore) -> None:
    session = Session(store)
    session.edit_prompt("p")
    assert session.context()[-1] == {"role": "system", "content": '[current prompt: "p"]'}
    assert all("current prompt" not in e.content for e in store.events(session.conversation.id))


def test_listeners_hear_appends_and_switches(store: MemoryStore) -> None:
    session = Session(store)
    heard: list[SessionEvent] = []
    session.subscribe(heard.append)
    session.mark("x")
    child = session.fork()
    names = [h.name for h in heard]
    assert names[:2] == ["changed", "changed"]
    assert names[-1] == "conversation_switched" and heard[-1].conversation_id == child.id


def test_fork_from_here_and_edit_and_resend_bounds(store: MemoryStore) -> None:
    session = Session(store)
    session.append(Kind.USER, "one")
    two = session.append(Kind.USER, "two")
    session.append(Kind.USER, "three")
    parent = session.conversation.id
    session.fork(at_event=two.id)
    assert [e.content for e in session.state.context] == ["one", "two"]
    # "edit and resend" forks just before a message
    session.open(parent)
    session.fork(at_event=two.id - 1)
    assert [e.content for e in session.state.context] == ["one"]
    # a fork of that fork "from here" at an ancestor's event keeps the lower bound
    session.append(Kind.USER, "child-own")
    session.fork(at_event=two.id - 1)
    assert [e.content for e in session.state.context] == ["one"]


def test_fork_of_an_empty_child_inherits_through_it(store: MemoryStore) -> None:
    session = Session(store)
    session.append(Kind.USER, "root text")
    session.fork()
    session.fork()  # the middle child had only its "Forked from" event
    session.fork()
    assert [e.content for e in session.state.context] == ["root text"]


def test_kill_current_switches_to_parent(store: MemoryStore) -> None:
    session = Session(store)
    session.append(Kind.USER, "r")
    root = session.conversation.id
    child = session.fork().id
    target, count = session.kill(None, cascade=False)
    assert (target.id, count, session.conversation.id) == (child, 1, root)
    assert session.state.scrollback[-1].content == f"Closed {child}"
    with pytest.raises(UserError, match=r"^Conversation already closed"):
        session.kill(child, cascade=False)


ops = st.lists(
    st.one_of(
        st.tuples(st.just("user"), st.text("abc", min_size=1, max_size=3)),
        st.tuples(st.just("assistant"), st.sampled_from(["", "p1", "p2"])),
        st.tuples(st.just("mark"), st.sampled_from([None, "a", "b"])),
        st.tuples(st.just("rewind"), st.sampled_from([None, "a", "b", "zz"])),
        st.tuples(st.just("clear"), st.none()),
        st.tuples(st.just("edit"), st.sampled_from(["", "e1", "e2"])),
        st.tuples(st.just("fork"), st.none()),
        st.tuples(st.just("parent"), st.none()),
        st.tuples(st.just("model"), st.sampled_from(["m1", "m2"])),
        st.tuples(st.just("system"), st.sampled_from(["", "s1"])),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(ops)
def test_live_state_always_equals_a_fresh_replay(script: list) -> None:  # type: ignore[type-arg]
    store = MemoryStore()
    try:
        session = Session(store, registry=default_registry())
        for op, arg in script:
            try:
                if op == "user":
                    session.append(Kind.USER, arg)
                elif op == "assistant":
                    session.append(Kind.ASSISTANT, "reply", {"prompt": arg} if arg else {})
                elif op == "mark":
                    session.mark(arg)
                elif op == "rewind":
                    session.rewind(arg)
                elif op == "clear":
                    session.clear()
                elif op == "edit":
                    session.edit_prompt(arg)
                elif op == "fork":
                    session.fork()
                elif op == "parent" and session.conversation.parent:
                    session.open(session.conversation.parent)
                elif op == "model":
                    session.registry.dispatch(session, f"/model {arg}")
                elif op == "system":
                    session.registry.dispatch(session, f"/system {arg}")
            except UserError:
                pass
            if session.saved:
                fresh = replay_conversation(store, session.conversation.id)
                assert snapshot(session.state) == snapshot(fresh), (op, arg)
    finally:
        store.close()


def test_a_new_conversation_whose_id_was_taken_meanwhile_gets_its_own_events() -> None:
    from ikgui.domain.events import Conversation

    store = MemoryStore()
    session = Session(store, registry=default_registry())
    planned = session.conversation.id
    store.insert_conversation(Conversation(id=planned, title="another program's"))
    session.append(Kind.USER, "hello")
    mine = session.conversation.id
    assert mine != planned
    assert [e.content for e in store.events(mine)] == ["hello"]
    assert store.events(planned) == []
    assert [e.content for e in session.state.scrollback] == ["hello"]

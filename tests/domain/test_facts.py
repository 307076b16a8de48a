"""Typed facts (issue 9): one frozen dataclass per fact, and the transcript change the
domain describes so no view re-derives the fold."""

from __future__ import annotations

import dataclasses

import pytest

from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.facts import Changed, ConversationSwitched, Fact, TranscriptChange
from ikgui.domain.state.transcript import GroupKind
from tests.support.memstore import MemoryStore


def listen(session: Session) -> list[Fact]:
    heard: list[Fact] = []
    session.subscribe(heard.append)
    return heard


def appended(heard: list[Fact]) -> list[Changed]:
    return [f for f in heard if isinstance(f, Changed) and f.appended]


def change_of(fact: Changed) -> TranscriptChange | None:
    """How the transcript changed with the one event ``fact`` appended."""
    ((_, change),) = fact.appended
    return change


def test_facts_are_frozen_types_not_names() -> None:
    session = Session(MemoryStore())
    heard = listen(session)
    event = session.append(Kind.USER, "hello")
    session.update_fields(title="t")
    session.new_conversation()
    kinds = [type(f) for f in heard]
    assert kinds == [Changed, Changed, ConversationSwitched]
    first = heard[0]
    assert isinstance(first, Changed) and first.events == (event,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.conversation_id = "x"  # type: ignore[misc]


def test_an_append_says_what_the_scrollback_shows_now() -> None:
    session = Session(MemoryStore())
    heard = listen(session)
    user = session.append(Kind.USER, "one")
    session.append(Kind.PROMPT_EDIT, "", {"prompt": "p"})  # shown as a notice
    facts = appended(heard)
    assert change_of(facts[0]) == TranscriptChange((user,))
    assert facts[0].appended[0][1] is not None and facts[0].appended[0][1].collapsed is None


def test_a_rewind_says_which_items_became_a_collapsed_group() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "one")
    session.mark("m")
    two = session.append(Kind.USER, "two")
    three = session.append(Kind.USER, "three")
    heard = listen(session)
    rewind = session.rewind("m")
    (fact,) = appended(heard)
    change = change_of(fact)
    assert change is not None and change.appended == (rewind,)
    group = change.collapsed
    assert group is not None and group.kind == GroupKind.REWOUND and group.key == rewind.id
    assert group.events == (two, three) and group.start == two.id
    assert group.label == "2 items rewound"
    assert [e.content for e in session.state.scrollback[:2]] == ["one", ""]
    heard.clear()
    clear = session.clear()
    (fact,) = appended(heard)
    change = change_of(fact)
    assert change is not None and change.appended == ()
    cleared = change.collapsed
    assert cleared is not None and cleared.kind == GroupKind.CLEARED and cleared.start == 0
    assert cleared.label == "Context cleared · 5 earlier items"  # the rewound ones too
    assert session.state.transcript == [cleared] and clear.kind == Kind.CLEAR


def test_a_rewind_to_a_mark_that_is_gone_shows_nothing_new() -> None:
    session = Session(MemoryStore())
    session.mark("m")
    session.append(Kind.USER, "one")
    heard = listen(session)
    # Written by hand (an older version, an import): no live mark has that id.
    session.append(Kind.REWIND, "", {"target_event_id": 999, "target_label": "m"})
    (fact,) = appended(heard)
    assert change_of(fact) == TranscriptChange()


def test_another_conversations_event_has_no_transcript_change() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "here")
    other = session.conversation.id
    session.new_conversation()
    heard = listen(session)
    session.append_to(other, Kind.USER, "there")
    (fact,) = appended(heard)
    assert fact.conversation_id == other and change_of(fact) is None

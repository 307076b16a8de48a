"""The window's transcript (SPEC §4.4, issue 10 item 1) and Retry's fold (item 2), on the
in-memory store: what a rewind, a clear or a retry takes out of the context stays in the
display list as a collapsed group, live and after a fresh replay alike, while the
context and the scrollback are exactly what they were."""

from __future__ import annotations

import asyncio

import pytest

from ikgui.domain.errors import ProviderError
from ikgui.domain.events import Event, Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.replay import replay, replay_conversation
from ikgui.domain.state.transcript import Entry, Group, GroupKind, cleared_items
from ikgui.domain.streaming import TextDelta
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def shape(entries: list[Entry]) -> list[str]:
    """Each entry as text: an event's content (or kind), a group's label."""
    return [f"[{e.label}]" if isinstance(e, Group) else (e.content or e.kind) for e in entries]


def session_with(*scripts: list[object]) -> tuple[MemoryStore, Session, ScriptedProvider]:
    store = MemoryStore()
    provider = ScriptedProvider(*scripts)  # type: ignore[arg-type]
    settings = Settings(default_provider="local", default_model="mock-gpt")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    return store, Session(store, settings, provider_factory=provider), provider


def fresh(session: Session) -> list[Entry]:
    return replay_conversation(session.store, session.conversation.id).transcript


def test_a_rewind_keeps_the_rewound_items_as_one_group_where_they_were() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "one")
    session.mark("m")
    two = session.append(Kind.USER, "two")
    session.append(Kind.ASSISTANT, "reply two")
    session.rewind("m")
    transcript = session.state.transcript
    assert shape(transcript) == ["one", "mark", "[2 items rewound]", "rewind"]
    group = transcript[2]
    assert isinstance(group, Group) and group.events[0] == two
    # the context and the scrollback are as before
    assert [e.content for e in session.state.context] == ["one"]
    assert [e.kind for e in session.state.scrollback] == ["user", "mark", "rewind"]
    assert shape(fresh(session)) == shape(transcript)


def test_a_second_rewind_to_the_same_mark_takes_the_first_group_in() -> None:
    session = Session(MemoryStore())
    session.mark("m")
    session.append(Kind.USER, "a")
    session.rewind("m")
    session.append(Kind.USER, "b")
    session.rewind("m")
    # everything after the mark is out of the context alike: one group
    assert shape(session.state.transcript) == ["mark", "[3 items rewound]", "rewind"]
    assert shape(fresh(session)) == shape(session.state.transcript)


def test_a_clear_leaves_a_counted_group_whose_items_load_on_demand() -> None:
    session = Session(MemoryStore())
    for text in ("a", "b", "c"):
        session.append(Kind.USER, text)
    session.mark(None)
    session.clear()
    session.append(Kind.USER, "d")
    assert shape(session.state.transcript) == ["[Context cleared · 4 earlier items]", "d"]
    replayed = fresh(session)
    assert shape(replayed) == shape(session.state.transcript)
    group = replayed[0]
    assert isinstance(group, Group) and group.events == ()  # not read by the replay
    assert shape(cleared_items(session.store, group)) == ["a", "b", "c", "mark"]
    assert [e.content for e in session.state.context] == ["d"]


def test_an_earlier_clear_is_a_group_inside_the_later_one() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "a")
    session.clear()
    session.append(Kind.USER, "b")
    session.append(Kind.USER, "c")
    session.clear()
    outer = fresh(session)
    assert shape(outer) == ["[Context cleared · 2 earlier items]"]
    assert isinstance(outer[0], Group)
    inner = cleared_items(session.store, outer[0])
    assert shape(inner) == ["[Context cleared · 1 earlier item]", "b", "c"]
    assert isinstance(inner[0], Group)
    assert shape(cleared_items(session.store, inner[0])) == ["a"]


def test_a_fork_shows_its_parents_groups_and_counts_across_the_fork() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "p1")
    session.mark("m")
    session.append(Kind.USER, "p2")
    session.rewind("m")
    session.fork()
    session.append(Kind.USER, "c1")
    session.clear()
    assert shape(fresh(session)) == ["[Context cleared · 6 earlier items]"]
    group = fresh(session)[0]
    assert isinstance(group, Group)
    assert shape(cleared_items(session.store, group)) == [
        "p1",
        "mark",
        "p2",
        "rewind",
        "Forked from " + session.conversation.parent,  # type: ignore[operator]
        "c1",
    ]


def test_a_clear_of_nothing_shows_no_group() -> None:
    session = Session(MemoryStore())
    session.clear()
    assert session.state.transcript == [] and fresh(session) == []


def test_retry_of_a_failed_reply_keeps_one_user_message_in_the_context() -> None:
    failure = ProviderError("The server had an internal error (500)", "overloaded", 500)
    store, session, provider = session_with(
        [TextDelta("half an ans"), failure], text_reply("a whole answer")
    )
    with pytest.raises(ProviderError):
        asyncio.run(session.send("question"))
    error = session.state.scrollback[-1]
    assert error.kind == Kind.ERROR
    reply = asyncio.run(session.retry(error.id))
    assert reply is not None and reply.content == "a whole answer"
    context = session.context()
    assert [(m["role"], m["content"]) for m in context] == [
        ("user", "question"),
        ("assistant", "a whole answer"),
    ]
    # the model was asked the same question again, without the failed half
    assert provider.requests[1].messages == [{"role": "user", "content": "question"}]
    assert shape(session.state.transcript) == [
        "question",
        "[Failed attempt · 2 items]",
        "a whole answer",
    ]
    replayed = replay_conversation(store, session.conversation.id)
    assert shape(replayed.transcript) == shape(session.state.transcript)
    assert [e.id for e in replayed.context] == [e.id for e in session.state.context]
    kinds = [e.kind for e in store.events(session.conversation.id)]
    assert kinds == ["user", "assistant", "error", "retry", "assistant"]
    assert kinds.count("user") == 1


def test_retry_of_a_reply_that_failed_before_any_text() -> None:
    failure = ProviderError("Cannot connect", "connect")
    _, session, _ = session_with([failure], text_reply("fine"))
    with pytest.raises(ProviderError):
        asyncio.run(session.send("hello"))
    asyncio.run(session.retry(session.state.scrollback[-1].id))
    assert shape(session.state.transcript) == ["hello", "[Failed attempt · 1 item]", "fine"]
    assert [m["content"] for m in session.context()] == ["hello", "fine"]


def test_retry_of_an_earlier_reply_regenerates_it_in_a_fork() -> None:
    store, session, provider = session_with(
        text_reply("first"), text_reply("second"), text_reply("first, again")
    )
    asyncio.run(session.send("q1"))
    first = session.state.scrollback[-1]
    asyncio.run(session.send("q2"))
    parent = session.conversation.id
    asyncio.run(session.retry(first.id))
    assert session.conversation.parent == parent
    assert [m["content"] for m in session.context()] == ["q1", "first, again"]
    assert [m["content"] for m in provider.requests[-1].messages] == ["q1"]
    assert [e.kind for e in store.events(parent)].count("user") == 2  # untouched


def test_a_stored_slash_line_is_answered_as_text_on_retry() -> None:
    failure = ProviderError("cut", "cut")
    _, session, provider = session_with([failure], text_reply("ok"))
    with pytest.raises(ProviderError):
        asyncio.run(session.execute("//help"))
    asyncio.run(session.retry(session.state.scrollback[-1].id))
    assert provider.requests[-1].messages == [{"role": "user", "content": "/help"}]
    assert not any(e.kind == Kind.COMMAND for e in session.state.scrollback)


def test_a_retry_without_a_user_message_target_is_skipped() -> None:
    def event(i: int, kind: str, content: str = "", data: dict[str, object] | None = None) -> Event:
        return Event(i, "c", kind, content, data)  # type: ignore[arg-type]

    state = replay(
        [
            [
                event(1, "user", "q"),
                event(2, "assistant", "a"),
                event(3, "retry", "", {"target_event_id": 2}),
            ]
        ]
    )
    assert [e.id for e in state.context] == [1, 2] and state.skipped == [3]
    assert GroupKind.RETRIED not in [getattr(e, "kind", None) for e in state.transcript]


def test_an_imported_retry_points_at_the_imported_message() -> None:
    from ikgui.domain.library.exchange import export_json
    from ikgui.domain.library.importing import import_document

    source = Session(MemoryStore())
    source.append(Kind.USER, "before")
    user = source.append(Kind.USER, "question")
    source.append(Kind.ASSISTANT, "half")
    source.append(Kind.RETRY, "", {"target_event_id": user.id})
    source.append(Kind.ASSISTANT, "whole")
    document = export_json(source.store, [source.conversation.id])
    target = MemoryStore()
    target.insert_conversation(source.conversation.__class__(id="chat-pad0"))
    for _ in range(5):  # the imported events get other ids
        target.append_event("chat-pad0", "user", "padding")
    (new_id,) = import_document(target, document, 0.0).ids
    context = replay_conversation(target, new_id).context
    assert [e.content for e in context] == ["before", "question", "whole"]
    assert shape(replay_conversation(target, new_id).transcript) == shape(source.state.transcript)


def test_a_rewind_after_reopening_a_cleared_conversation_keeps_the_mark() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "old")
    session.clear()
    session.append(Kind.USER, "a")
    session.mark("m")
    session.append(Kind.USER, "b")
    session.open(session.conversation.id)  # replayed: the cleared group is counted
    session.rewind("m")
    expected = ["[Context cleared · 1 earlier item]", "a", "mark", "[1 item rewound]", "rewind"]
    assert shape(session.state.transcript) == expected
    assert shape(fresh(session)) == expected

"""Closed branches are read-only (issue 12, item 4): a send, and every command that
would append to a closed branch, is refused with one rule; ``/reopen`` (an
``agent_reopened`` event in the parent) makes it take input again, and replay agrees."""

from __future__ import annotations

import asyncio

import pytest

from ikgui.domain.errors import ClosedError
from ikgui.domain.events import STATUS_ACTIVE, STATUS_KILLED, Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.replay import replay_conversation
from tests.domain.test_commands import make_session
from tests.support.scripted import ScriptedProvider, text_reply


def closed_child(session: Session) -> tuple[str, str]:
    """A root with one message and a child closed with ``/kill`` (on screen: the child)."""
    session.append(Kind.USER, "root question")
    root = session.conversation.id
    child = session.fork().id
    asyncio.run(session.execute("/kill"))
    assert session.conversation.id == root  # /kill switches to the parent
    session.open(child)
    return root, child


def test_a_closed_branch_refuses_a_send_and_keeps_its_log() -> None:
    provider = ScriptedProvider(text_reply("never"))
    session = make_session(provider)
    _, child = closed_child(session)
    assert session.closed and session.conversation.status == STATUS_KILLED
    before = list(session.store.events(child))
    with pytest.raises(ClosedError) as caught:
        asyncio.run(session.execute("hello"))
    assert caught.value.line == f"Error: Conversation is closed: {child}"
    assert caught.value.hint and f"ikgui conv reopen {child}" in caught.value.hint
    with pytest.raises(ClosedError):
        asyncio.run(session.run("send", text="hello"))
    assert session.store.events(child) == before
    assert provider.requests == []  # nothing was asked of the model


@pytest.mark.parametrize(
    "line", ["/mark x", "/clear", "/prompt new", "/title Renamed", "/model m2", "/fork"]
)
def test_commands_that_would_append_are_refused(line: str) -> None:
    session = make_session()
    _, child = closed_child(session)
    title = session.conversation.title
    before = list(session.store.events(child))
    with pytest.raises(ClosedError):
        asyncio.run(session.execute(line))
    assert session.store.events(child) == before
    assert session.store.get_conversation(child).title == title  # type: ignore[union-attr]
    assert session.conversation.id == child  # /fork did not switch either


def test_read_only_commands_run_but_store_nothing() -> None:
    session = make_session()
    _, child = closed_child(session)
    before = list(session.store.events(child))
    assert asyncio.run(session.execute("/help")).startswith("Available commands:")
    assert "/reopen [ref]" not in asyncio.run(session.execute("/help"))  # usage not shown
    assert "  /reopen - Reopen a closed branch" in session.registry.help_text()
    assert child in asyncio.run(session.execute("/tree"))
    assert session.store.events(child) == before
    # the toolbar's rules say the same: nothing that appends can act here
    assert not session.can_run("mark") and not session.can_run("fork")
    assert session.can_run("new") and session.can_run("export")


def test_reopen_records_an_event_and_replay_agrees() -> None:
    provider = ScriptedProvider(text_reply("back again"))
    session = make_session(provider)
    root, child = closed_child(session)
    assert asyncio.run(session.execute("/reopen")) == f"Reopened {child}"
    assert not session.closed and session.conversation.status == STATUS_ACTIVE
    stored = session.store.get_conversation(child)
    assert stored is not None and stored.status == STATUS_ACTIVE
    (event,) = [e for e in session.store.events(root) if e.kind == Kind.AGENT_REOPENED]
    assert event.content == f"Reopened {child}"
    assert event.data == {"target": child, "reopened_by": "user", "from": child}
    asyncio.run(session.execute("hello again"))
    assert session.state.scrollback[-1].content == "back again"
    fresh = replay_conversation(session.store, child)
    assert [e.content for e in fresh.scrollback] == [e.content for e in session.state.scrollback]
    session.open(root)
    assert session.state.scrollback[-1].kind == Kind.AGENT_REOPENED


def test_reopen_from_the_parent_folds_the_notice_live() -> None:
    session = make_session()
    root, child = closed_child(session)
    session.open(root)
    asyncio.run(session.execute(f"/reopen {child}"))
    assert session.state.scrollback[-1].content == f"Reopened {child}"
    assert [e.id for e in session.state.scrollback] == [
        e.id for e in replay_conversation(session.store, root).scrollback
    ]
    with pytest.raises(Exception, match=f"Conversation is not closed: {child}"):
        asyncio.run(session.execute(f"/reopen {child}"))

"""A conversation in the Trash is read-only (issue 20, item 4): a send and every
command that would append to it are refused by the rule that refuses a closed branch,
with a hint to restore it; restoring it makes it take input again. And who closed a
branch reads as who (issue 20, wording): ``killed_by`` is ``user``, old events that
held a conversation id there read the same."""

from __future__ import annotations

import asyncio

import pytest

from ikgui.domain.errors import TrashedError
from ikgui.domain.events import Kind
from ikgui.domain.session.closing import closed_by
from ikgui.domain.session.session import Session
from tests.domain.test_commands import make_session
from tests.support.scripted import ScriptedProvider, text_reply


def trashed(session: Session) -> str:
    session.append(Kind.USER, "a question")
    conv_id = session.conversation.id
    session.trash(conv_id)
    session.open(conv_id)  # opened from the Trash view
    assert session.trashed and session.read_only and not session.closed
    return conv_id


def test_a_trashed_conversation_refuses_a_send_and_says_how_to_restore_it() -> None:
    provider = ScriptedProvider(text_reply("never"))
    session = make_session(provider)
    conv_id = trashed(session)
    before = list(session.store.events(conv_id))
    with pytest.raises(TrashedError) as caught:
        asyncio.run(session.execute("hello"))
    assert caught.value.line == f"Error: Conversation is in the Trash: {conv_id}"
    assert caught.value.hint == f"Hint: restore it with `ikgui conv restore {conv_id}`"
    with pytest.raises(TrashedError):
        asyncio.run(session.resend("hello"))
    assert session.store.events(conv_id) == before
    assert provider.requests == []


@pytest.mark.parametrize("line", ["/mark x", "/clear", "/prompt new", "/model m2", "/fork"])
def test_commands_that_would_append_are_refused(line: str) -> None:
    session = make_session()
    conv_id = trashed(session)
    before = list(session.store.events(conv_id))
    with pytest.raises(TrashedError):
        asyncio.run(session.execute(line))
    assert session.store.events(conv_id) == before
    assert session.conversation.id == conv_id
    assert not session.can_run("mark") and not session.can_run("fork")


def test_help_runs_and_stores_nothing() -> None:
    session = make_session()
    conv_id = trashed(session)
    before = list(session.store.events(conv_id))
    assert asyncio.run(session.execute("/help")).startswith("Available commands:")
    assert session.store.events(conv_id) == before


def test_restored_it_takes_input_again() -> None:
    provider = ScriptedProvider(text_reply("welcome back"))
    session = make_session(provider)
    conv_id = trashed(session)
    asyncio.run(session.run("restore", conversation=conv_id))
    assert not session.trashed and not session.read_only
    asyncio.run(session.execute("hello again"))
    assert session.state.scrollback[-1].content == "welcome back"


def test_killed_by_says_who_and_old_events_read_the_same() -> None:
    session = make_session()
    session.append(Kind.USER, "root question")
    root = session.conversation.id
    child = session.fork().id
    asyncio.run(session.execute("/kill"))
    (event,) = [e for e in session.store.events(root) if e.kind == Kind.AGENT_KILLED]
    assert event.data == {
        "target": child,
        "killed_by": "user",
        "from": child,
        "cascade": False,
        "count": 1,
    }
    assert closed_by(event.data) == "user"
    old = {"target": child, "killed_by": child, "cascade": False, "count": 1}  # before
    assert closed_by(old) == "user"
    assert closed_by({"target": child, "reopened_by": root}) == "user"

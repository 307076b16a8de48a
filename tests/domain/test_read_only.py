"""Read-only is one answer of the session (issue 22 item 3): ``Session.read_only`` says
why (the demo, a store opened read-only, a closed branch, the Trash) or ``None``, and the
domain refuses what would write — a send, a command that writes, an edit of the working
prompt — with a plain ``UserError`` naming the reason, for the window and ``ikgui run``
alike. Commands that only show still run."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.errors import UserError
from ikgui.domain.events import Kind
from ikgui.domain.session.read_only import DEMO, ReadOnly, Reason
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from tests.domain.test_commands import make_session
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply

FULL = "the disk is full: no room left in /home/me/.local/share/ikgui"


def demo(session: Session) -> str:
    session.lock(DEMO)
    return "The demo is read-only: open your own conversations to try this."


def full_disk(session: Session) -> str:
    """A session over a store opened read-only (built anew over the same store)."""
    return f"Your conversations are open read-only: {FULL}."


def closed(session: Session) -> str:
    child = session.fork()
    session.kill(child.id, cascade=False)
    session.open(child.id)
    return f"Conversation is closed: {child.id}"


def trashed(session: Session) -> str:
    conv_id = session.conversation.id
    session.trash(conv_id)
    session.open(conv_id)
    return f"Conversation is in the Trash: {conv_id}"


REASONS: dict[Reason, Callable[[Session], str]] = {
    Reason.DEMO: demo,
    Reason.STORE: full_disk,
    Reason.CLOSED: closed,
    Reason.TRASHED: trashed,
}


def session_for(reason: Reason) -> tuple[Session, str]:
    """A session with a stored exchange, made read-only for ``reason``; and the refusal."""
    provider = ScriptedProvider(text_reply("an answer"))
    session = make_session(provider)
    session.append(Kind.USER, "a question")
    session.append(Kind.ASSISTANT, "an answer")
    session.mark("here")
    if reason is Reason.STORE:
        store = session.store
        assert isinstance(store, MemoryStore)
        conv_id = session.conversation.id
        store.read_only = FULL
        settings = Settings(default_provider="local", default_model="mock-gpt")
        settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
        session = Session(store, settings, registry=default_registry(), provider_factory=provider)
        session.open(conv_id)
    message = REASONS[reason](session)
    return session, message


@pytest.mark.parametrize("reason", list(Reason))
def test_the_session_says_why_it_is_read_only(reason: Reason) -> None:
    session, message = session_for(reason)
    answer = session.read_only
    assert isinstance(answer, ReadOnly) and answer.reason is reason
    assert answer.message == message
    assert answer.whole == (reason in (Reason.DEMO, Reason.STORE))


@pytest.mark.parametrize("reason", list(Reason))
def test_sending_writing_commands_and_prompt_edits_are_refused_naming_the_reason(
    reason: Reason,
) -> None:
    session, message = session_for(reason)
    conv_id = session.conversation.id
    before = [(e.kind, e.content) for e in session.store.events(conv_id)]
    attempts: list[Callable[[], object]] = [
        lambda: asyncio.run(session.execute("hello")),
        lambda: asyncio.run(session.send("hello")),
        lambda: asyncio.run(session.execute("/mark again")),
        lambda: asyncio.run(session.run("rewind", label="here")),
        lambda: asyncio.run(session.execute("/clear")),
        lambda: session.edit_prompt("a new working prompt"),
    ]
    for attempt in attempts:
        with pytest.raises(UserError) as caught:
            attempt()
        assert caught.value.message == message
    assert not session.can_run("mark") and not session.can_run("clear")
    assert [(e.kind, e.content) for e in session.store.events(conv_id)] == before


@pytest.mark.parametrize("reason", [Reason.DEMO, Reason.STORE])
def test_nothing_is_written_anywhere_when_the_whole_session_is_read_only(
    reason: Reason,
) -> None:
    """The demo and a read-only store also refuse what a closed branch allows (it acts
    on other conversations: rename, Trash, reopen); showing commands still run."""
    session, message = session_for(reason)
    conv_id = session.conversation.id
    attempts: dict[str, Callable[[], object]] = {
        "rename": lambda: asyncio.run(session.run("rename", conversation=conv_id, title="x")),
        "trash": lambda: asyncio.run(session.run("trash", conversation=conv_id)),
        "reopen": lambda: asyncio.run(session.execute("/reopen")),
        "kill": lambda: asyncio.run(session.execute("/kill")),
    }
    for name, attempt in attempts.items():
        with pytest.raises(UserError) as caught:
            attempt()
        assert caught.value.message == message, name
        assert not session.can_run(name), name
    assert "Available commands" in asyncio.run(session.execute("/help"))
    assert session.can_run("export") and session.can_run("help")


@pytest.mark.parametrize("reason", [Reason.CLOSED, Reason.TRASHED])
def test_a_read_only_conversation_still_runs_what_acts_elsewhere(reason: Reason) -> None:
    session, _ = session_for(reason)
    assert session.can_run("new") and session.can_run("rename")
    conv_id = session.conversation.id
    asyncio.run(session.run("rename", conversation=conv_id, title="kept"))
    assert session.conversation.title == "kept"


def test_a_writable_session_says_none() -> None:
    session = make_session()
    assert session.read_only is None
    session.append(Kind.USER, "a question")
    assert session.read_only is None and session.can_run("mark")

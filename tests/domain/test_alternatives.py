"""Alternatives in place (issue 25 item 1, SPEC §14): a retried reply's attempts and an
edited message's branches are versions of one turn; a ``choose`` remembers which retried
reply is shown, only that one is sent, and replay agrees with the live session."""

from __future__ import annotations

import asyncio
import contextlib

from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.replay import replay_conversation
from ikgui.domain.state.tally import is_message
from ikgui.domain.state.transcript import Entry, Group
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def shape(entries: list[Entry]) -> list[str]:
    return [f"[{e.label}]" if isinstance(e, Group) else (e.content or e.kind) for e in entries]


def session_with(*replies: str) -> tuple[MemoryStore, Session, ScriptedProvider]:
    store = MemoryStore()
    provider = ScriptedProvider(*(text_reply(r) for r in replies))
    settings = Settings(default_provider="local", default_model="m")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    return store, Session(store, settings, provider_factory=provider), provider


def same_as_replay(store: MemoryStore, session: Session) -> None:
    conv_id = session.conversation.id
    fresh = replay_conversation(store, conv_id)
    assert shape(fresh.transcript) == shape(session.state.transcript)
    assert [e.id for e in fresh.context] == [e.id for e in session.state.context]
    assert fresh.retry_alternatives() == session.state.retry_alternatives()
    own = [e for e in fresh.context if e.conversation_id == conv_id]
    assert store.context_counts([conv_id]) == {
        conv_id: sum(is_message(e.kind, e.content) for e in own)
    }


def test_two_retries_make_three_alternatives_and_a_choice_is_remembered() -> None:
    store, session, provider = session_with("first", "second", "third", "after")
    asyncio.run(session.send("question"))
    asyncio.run(session.retry(session.state.context[-1].id))
    third = asyncio.run(session.retry(session.state.context[-1].id))
    assert third is not None
    # No "Earlier attempt" group: the newest is shown, as 3/3.
    assert shape(session.state.transcript) == ["question", "third"]
    alternatives = session.alternatives()[third.id]
    assert (alternatives.label, alternatives.accessible) == ("3/3", "Alternative 3 of 3")
    same_as_replay(store, session)

    session.switch_alternative(alternatives, 0)
    assert shape(session.state.transcript) == ["question", "first"]
    first = session.state.context[-1]
    assert session.alternatives()[first.id].label == "1/3"
    assert [m["content"] for m in session.context()] == ["question", "first"]
    same_as_replay(store, session)
    choose = store.events(session.conversation.id)[-1]
    assert choose.kind == Kind.CHOOSE and choose.data["chosen_event_id"] == first.id

    # What follows goes on from the chosen one; only that path reaches the model.
    asyncio.run(session.send("go on"))
    assert provider.requests[-1].messages == [
        {"role": "user", "content": "question"},
        {"role": "assistant", "content": "first"},
        {"role": "user", "content": "go on"},
    ]
    assert shape(session.state.transcript) == ["question", "first", "go on", "after"]
    same_as_replay(store, session)
    # Flipping to 2/3 shows that answer alone; back to 1/3 shows what followed it.
    session.switch_alternative(session.alternatives()[first.id], 1)
    assert shape(session.state.transcript) == ["question", "second"]
    same_as_replay(store, session)
    second = session.state.context[-1]
    session.switch_alternative(session.alternatives()[second.id], 0)
    assert shape(session.state.transcript) == ["question", "first", "go on", "after"]
    same_as_replay(store, session)


def test_a_failed_attempt_is_no_alternative() -> None:
    from ikgui.domain.errors import ProviderError

    store = MemoryStore()
    provider = ScriptedProvider([ProviderError("down", "connect")], text_reply("fine"))  # type: ignore[arg-type]
    settings = Settings(default_provider="local", default_model="m")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    session = Session(store, settings, provider_factory=provider)
    with contextlib.suppress(ProviderError):
        asyncio.run(session.send("hello"))
    asyncio.run(session.retry(session.state.scrollback[-1].id))
    assert shape(session.state.transcript) == ["hello", "[Failed attempt · 1 item]", "fine"]
    assert session.alternatives() == {}


def test_edits_are_alternatives_across_branches_without_a_choose() -> None:
    store, session, _ = session_with("a reply", "an edited reply", "another edit")
    asyncio.run(session.send("original"))
    root = session.conversation
    original = session.state.context[0]
    asyncio.run(session.edit_and_resend(original.id, "edited"))
    first_edit = session.conversation
    edited = next(e for e in session.state.transcript if getattr(e, "content", "") == "edited")
    found = session.alternatives()[edited.id]  # type: ignore[union-attr]
    assert found.label == "2/2"
    assert [o.conversation_id for o in found.options] == [root.id, first_edit.id]
    session.switch_alternative(found, 0)
    assert session.conversation.id == root.id
    at_root = session.alternatives()[original.id]
    assert at_root.label == "1/2"
    # Editing the original again: a third version of the same turn.
    asyncio.run(session.edit_and_resend(original.id, "edited again"))
    again = next(e for e in session.state.transcript if getattr(e, "content", "") == "edited again")
    assert session.alternatives()[again.id].label == "3/3"  # type: ignore[union-attr]
    assert all(e.kind != Kind.CHOOSE for e in store.events(root.id))


def test_an_earlier_reply_retried_in_a_branch_is_its_alternative() -> None:
    _, session, _ = session_with("one", "two", "one again")
    asyncio.run(session.send("first"))
    reply = session.state.context[-1]
    asyncio.run(session.send("second"))
    root = session.conversation.id
    asyncio.run(session.retry(reply.id))
    regenerated = session.state.context[-1]
    found = session.alternatives()[regenerated.id]
    assert found.label == "2/2" and found.options[0].conversation_id == root
    session.switch_alternative(found, 0)
    assert session.conversation.id == root
    assert session.alternatives()[reply.id].label == "1/2"

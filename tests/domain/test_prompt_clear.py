"""``/clear`` ends an unsaved working-prompt edit (issue 20, item 7): the next send does
not record ``[user edited prompt to: "…"]`` into the fresh context; the edit is set
aside, once, for the window to offer back, and never sent by itself."""

from __future__ import annotations

import asyncio

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import AgentSettings, ProviderSettings, Settings
from ikgui.domain.state.replay import replay_conversation
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def painter_session(provider: ScriptedProvider) -> Session:
    settings = Settings(default_provider="local", default_model="mock-gpt")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    settings.agents["painter"] = AgentSettings("painter", prompt_mode="line")
    session = Session(
        MemoryStore(), settings, registry=default_registry(), provider_factory=provider
    )
    session.new_conversation("painter")
    return session


def test_clear_ends_an_unsaved_edit_and_the_next_send_records_none() -> None:
    provider = ScriptedProvider(text_reply("Prompt: a red fox"), text_reply("fresh"))
    session = painter_session(provider)
    asyncio.run(session.execute("draw a fox"))
    assert session.state.working_prompt == "a red fox"
    session.stage_prompt("a blue fox")  # typed in the panel, not saved
    assert session.prompt_edited

    asyncio.run(session.execute("/clear"))
    assert not session.prompt_edited and session.staged_prompt is None
    asyncio.run(session.execute("something new"))

    conv = session.conversation.id
    kinds = [e.kind for e in session.store.events(conv)]
    assert Kind.PROMPT_EDIT not in kinds
    sent = provider.requests[-1].messages
    assert all("user edited prompt" not in str(m.get("content")) for m in sent)
    assert [m["content"] for m in sent if m["role"] == "user"] == ["something new"]
    assert [e.id for e in replay_conversation(session.store, conv).context] == [
        e.id for e in session.state.context
    ]


def test_the_edit_is_set_aside_once_and_never_sent_by_itself() -> None:
    provider = ScriptedProvider(text_reply("Prompt: a red fox"), text_reply("ok"))
    session = painter_session(provider)
    asyncio.run(session.execute("draw a fox"))
    session.stage_prompt("a blue fox")
    asyncio.run(session.execute("/clear"))
    assert session.take_set_aside_prompt() == "a blue fox"
    assert session.take_set_aside_prompt() is None
    asyncio.run(session.execute("go"))
    assert all(e.kind != Kind.PROMPT_EDIT for e in session.store.events(session.conversation.id))


def test_clear_without_an_edit_sets_nothing_aside() -> None:
    provider = ScriptedProvider(text_reply("Prompt: a red fox"))
    session = painter_session(provider)
    asyncio.run(session.execute("draw a fox"))
    asyncio.run(session.execute("/clear"))
    assert session.take_set_aside_prompt() is None

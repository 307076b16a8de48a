"""Projects (SPEC §15) in the session: a new conversation started in a project folder
is tagged with it and takes its defaults; the project's system prompt is read at each
request, never copied into the conversation; each part of the system prompt says where
it came from; the project's tools are the conversation's choice."""

from __future__ import annotations

import asyncio

from ikgui.domain.attachments import Attachment, StoredFile
from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.folders import Project, SystemPart
from ikgui.domain.library import folders
from ikgui.domain.session.session import Session
from ikgui.domain.settings import AgentSettings, ProviderSettings, Settings
from ikgui.domain.state import tool_use
from ikgui.domain.state.facts import Changed, Fact
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def _session(store: MemoryStore, provider: ScriptedProvider) -> Session:
    settings = Settings(default_provider="local", default_model="mock-gpt")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    settings.providers["other"] = ProviderSettings("other", "openai", provider.base_url)
    settings.agents["coder"] = AgentSettings("coder", system_prompt="You write code.")
    registry = default_registry()
    return Session(
        store, settings, clock=lambda: 1000.0, provider_factory=provider, registry=registry
    )


def _system(provider: ScriptedProvider, request: int) -> list[str]:
    return [m["content"] for m in provider.requests[request].messages if m["role"] == "system"]


def test_a_new_conversation_in_a_project_takes_its_settings_and_follows_its_prompt() -> None:
    store = MemoryStore()
    brief = StoredFile(Attachment("cd" * 32, "brief.md", "text/markdown", 5), b"brief", "brief")
    store.put_files([brief])
    folders.set_project(
        store,
        Project(
            "work/acme", "coder", "other", "big-model", "Answer in French.", (), (brief.attachment,)
        ),
    )
    provider = ScriptedProvider(text_reply("one"), text_reply("two"))
    session = _session(store, provider)
    conv = session.new_conversation(project="Work/Acme")
    assert conv.tags == ("work/acme",) and conv.agent == "coder"
    assert (conv.provider, conv.model) == ("other", "big-model")
    assert session.project_files() == (brief.attachment,)
    assert session.system_parts() == [
        SystemPart("agent", "You write code.", "coder"),
        SystemPart("project", "Answer in French.", "work/acme"),
    ]
    asyncio.run(session.send("bonjour", session.project_files()))
    assert session.project_files() == ()  # the first message only
    assert provider.requests[0].messages[-1]["files"][0].content == b"brief"
    assert _system(provider, 0) == ["You write code.\n\nAnswer in French."]
    assert provider.requests[0].model == "big-model"
    # Edited once: the next request of every conversation in the project follows.
    folders.set_project(store, Project("work/acme", "coder", system_prompt="Answer in German."))
    asyncio.run(session.send("hallo"))
    assert _system(provider, 1) == ["You write code.\n\nAnswer in German."]
    # Never copied into the conversation's log.
    logged = store.events(session.conversation.id)
    assert not any("French" in e.content or "German" in e.content for e in logged)
    # An explicit agent wins over the project's.
    assert session.new_conversation(None, project="work/acme").agent == "coder"


def test_system_replaces_the_agent_and_project_parts() -> None:
    store = MemoryStore()
    folders.set_project(store, Project("work", system_prompt="Be brief."))
    provider = ScriptedProvider(text_reply("ok"))
    session = _session(store, provider)
    session.new_conversation("coder", project="work")
    asyncio.run(session.execute("/system Talk like a pirate."))
    assert session.system_parts() == [SystemPart("/system", "Talk like a pirate.")]
    assert session.system_parts()[0].label() == "/system"


def test_a_conversation_tagged_into_a_project_folder_is_in_the_deepest_project() -> None:
    store = MemoryStore()
    folders.set_project(store, Project("work", system_prompt="Work."))
    folders.set_project(store, Project("work/acme", system_prompt="Acme."))
    session = _session(store, ScriptedProvider(text_reply("ok")))
    session.new_conversation()
    assert session.project is None
    asyncio.run(session.send("hi"))
    session.library.retag(session.conversation.id, ["work/acme/q3"])
    assert session.project is not None and session.project.folder == "work/acme"
    assert [p.label() for p in session.system_parts()] == ["project work/acme"]


def test_a_projects_tools_are_its_conversations_choice() -> None:
    settings = Settings()
    settings.agents["coder"] = AgentSettings("coder", tools=("git",))
    assert tool_use.choice_for(settings, "coder") == ("git",)
    assert tool_use.choice_for(settings, "coder", ("files", "web.fetch")) == ("files", "web.fetch")
    servers, tools = tool_use.chosen(settings, "coder", {}, ("files", "web.fetch"))
    assert (servers, tools) == ({"files"}, {"web.fetch"})


def test_another_process_s_edit_is_read_at_the_next_request_and_told() -> None:
    store = MemoryStore()
    folders.set_project(store, Project("work", tools=("clock",)))
    provider = ScriptedProvider(text_reply("one"), text_reply("two"), text_reply("three"))
    session = _session(store, provider)
    session.new_conversation(project="work")
    asyncio.run(session.send("hello"))
    facts: list[Fact] = []
    session.subscribe(facts.append)
    # Another process (``ikgui conv project``, another machine) edits the project: what
    # the session holds is what it read last, until the next request reads it again.
    folders.set_project(store, Project("work", tools=("clock", "files")))
    assert session.project is not None and session.project.tools == ("clock",)
    asyncio.run(session.send("again"))
    assert session.project is not None and session.project.tools == ("clock", "files")
    told = [f for f in facts if isinstance(f, Changed) and "project" in f.aspects]
    assert [f.conversation_id for f in told] == [session.conversation.id]
    # Unchanged at the next request: nothing is told.
    asyncio.run(session.send("third"))
    assert len([f for f in facts if isinstance(f, Changed) and "project" in f.aspects]) == 1

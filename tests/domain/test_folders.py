"""The session's folder operations (SPEC §15) for the window: a folder renamed, moved
and deleted with Undo through the one writer, the conversation on screen told its new
tags; smart folders and projects saved through it; the folder tree's values."""

from __future__ import annotations

import asyncio

from ikgui.domain.folders import Folder, Project, carries_all, folder_tree, project_of
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.facts import Changed
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def _session(store: MemoryStore) -> Session:
    provider = ScriptedProvider(text_reply("ok"))
    settings = Settings(default_provider="local", default_model="mock-gpt")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    return Session(store, settings, clock=lambda: 1000.0, provider_factory=provider)


def test_a_folder_renamed_and_undone_tells_the_conversation_on_screen() -> None:
    store = MemoryStore()
    session = _session(store)
    session.new_conversation(project="work/acme")
    asyncio.run(session.send("hello"))
    heard: list[object] = []
    session.subscribe(heard.append)
    edit = session.library.rename_folder("work", "clients/work")
    assert session.conversation.tags == ("clients/work/acme",)
    assert any(isinstance(f, Changed) and "tags" in f.aspects for f in heard)
    session.library.undo_folder_edit(edit)
    assert session.conversation.tags == ("work/acme",)
    gone = session.library.delete_folder("work")
    assert session.conversation.tags == () and store.count_conversations() == 1
    session.library.undo_folder_edit(gone)
    assert session.conversation.tags == ("work/acme",)
    assert store.get_conversation(session.conversation.id).tags == ("work/acme",)  # type: ignore[union-attr]


def test_smart_folders_and_projects_through_the_session() -> None:
    store = MemoryStore()
    session = _session(store)
    saved = session.library.save_smart_folder("Acme", "invoice", ["work"])
    assert store.smart_folders() == [saved]
    gone = session.library.delete_smart_folder("Acme")
    assert store.smart_folders() == []
    session.library.restore_smart_folder(gone)
    assert store.smart_folders() == [saved]
    session.library.set_project(Project("Work", model="m"))
    assert store.projects() == [Project("work", model="m")]


def test_the_tree_and_the_filter_rules() -> None:
    tree = folder_tree([("a/b", 2), ("a", 3), ("c", 1)], projects=["p/q"])
    assert [f.path for root in tree for f in root.walk()] == ["a", "a/b", "c", "p", "p/q"]
    assert tree[0] == Folder("a", 3, False, (Folder("a/b", 2),))
    assert tree[2].children[0].project and tree[2].count == 0
    assert tree[0].children[0].name == "b" and tree[0].children[0].depth == 1
    assert carries_all(("work/acme", "x"), ["work", "x"])
    assert not carries_all(("workshop",), ["work"])
    deep = project_of(("a/b/c",), [Project("a"), Project("a/b")])
    assert deep is not None and deep.folder == "a/b"

"""Folders from nested tags, smart folders and projects in the store (SPEC §15): the
subtree filter, the tree's counts, a folder renamed, moved and deleted with its undo,
smart folders and projects kept in the store (schema 9). On SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from ikgui.domain.attachments import Attachment, StoredFile
from ikgui.domain.errors import UserError
from ikgui.domain.folders import Project, SmartFolder
from ikgui.domain.library import folders
from ikgui.domain.state.ids import normalize_tag
from ikgui.storage import SqliteStore, open_store
from tests.storage.conftest import BOTH
from tests.storage.helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def _seed(store: SqliteStore) -> None:
    add_conversation(store, "chat-0001", tags=("work",), updated_at=1.0)
    add_conversation(store, "chat-0002", tags=("work/acme",), updated_at=2.0)
    add_conversation(store, "chat-0003", tags=("work/acme", "work/beta"), updated_at=3.0)
    add_conversation(store, "chat-0004", tags=("work/acme/q3", "ideas"), updated_at=4.0)
    add_conversation(store, "chat-0005", tags=("workshop",), updated_at=5.0)
    add_conversation(store, "chat-0006", tags=("work/beta",), updated_at=6.0, trashed_at=9.0)


def _ids(rows: list) -> list[str]:  # type: ignore[type-arg]
    return [c.id for c in rows]


def test_nested_tags_are_tags_whose_parts_are_tags() -> None:
    assert normalize_tag("#Work/Acme") == "work/acme"
    for bad in ("work/", "/work", "work//acme", "work/a b", "a/b/c/d/e/f/g/h/i"):
        with pytest.raises(UserError, match="Invalid tag"):
            normalize_tag(bad)


def test_a_folder_filter_takes_its_whole_subtree(store: SqliteStore) -> None:
    _seed(store)
    # ``work`` holds work/acme and work/acme/q3, and not ``workshop``.
    assert _ids(store.list_conversations(tags=["work"])) == [
        "chat-0004",
        "chat-0003",
        "chat-0002",
        "chat-0001",
    ]
    assert _ids(store.list_conversations(tags=["work/acme"])) == [
        "chat-0004",
        "chat-0003",
        "chat-0002",
    ]
    assert _ids(store.list_conversations(tags=["work", "ideas"])) == ["chat-0004"]
    assert _ids(store.list_conversations(2, tags=["work"])) == ["chat-0004", "chat-0003"]
    assert store.count_conversations(["work"]) == 4
    assert store.count_conversations(["work/beta"], trashed=True) == 1
    assert store.tags_under("work") == ["work", "work/acme", "work/acme/q3", "work/beta"]


def test_folder_counts_count_each_conversation_once(store: SqliteStore) -> None:
    _seed(store)
    assert store.folder_counts() == [
        ("ideas", 1),
        ("work", 4),
        ("work/acme", 3),  # chat-0003 has work/acme and work/beta: once under work
        ("work/acme/q3", 1),
        ("work/beta", 1),
        ("workshop", 1),
    ]
    assert store.folder_counts(trashed=True) == [("work", 1), ("work/beta", 1)]
    tree = folders.tree(store)
    assert [f.path for f in tree] == ["ideas", "work", "workshop"]
    work = tree[1]
    assert [(f.path, f.count) for f in work.walk()] == [
        ("work", 4),
        ("work/acme", 3),
        ("work/acme/q3", 1),
        ("work/beta", 1),
    ]


def test_renaming_a_folder_renames_its_subtree_and_undo_gives_it_back(
    store: SqliteStore,
) -> None:
    _seed(store)
    add_conversation(store, "chat-0007", tags=("job/acme",), updated_at=7.0)
    before = {c.id: c.tags for c in store.list_conversations(trashed=False)}
    edit = folders.rename_folder(store, "work", "job")
    assert store.tags_under("work") == []
    assert store.tags_under("job") == ["job", "job/acme", "job/acme/q3", "job/beta"]
    assert _ids(store.list_conversations(tags=["job/acme"])) == [
        "chat-0007",
        "chat-0004",
        "chat-0003",
        "chat-0002",
    ]
    assert edit.count == 5 and edit.describe() == "rename of folder 'work' to 'job'"
    folders.undo_folder_edit(store, edit)
    assert {c.id: c.tags for c in store.list_conversations(trashed=False)} == before
    assert store.get_conversation("chat-0006").tags == ("work/beta",)  # type: ignore[union-attr]


def test_a_folder_moves_under_another_and_up_again(store: SqliteStore) -> None:
    _seed(store)
    folders.rename_folder(store, "work", "clients/work")
    assert store.get_conversation("chat-0004").tags == ("clients/work/acme/q3", "ideas")  # type: ignore[union-attr]
    # Up: the subfolder takes the place of its parent (a/b → a, a/b/b → a/b).
    add_conversation(store, "chat-0008", tags=("a/b",), updated_at=8.0)
    add_conversation(store, "chat-0009", tags=("a/b/b", "a/b/x"), updated_at=9.0)
    edit = folders.rename_folder(store, "a/b", "a")
    assert store.get_conversation("chat-0009").tags == ("a/b", "a/x")  # type: ignore[union-attr]
    assert store.get_conversation("chat-0008").tags == ("a",)  # type: ignore[union-attr]
    folders.undo_folder_edit(store, edit)
    assert store.get_conversation("chat-0009").tags == ("a/b/b", "a/b/x")  # type: ignore[union-attr]
    with pytest.raises(UserError, match="into itself"):
        folders.rename_folder(store, "clients", "clients/work/more")


def test_deleting_a_folder_keeps_its_conversations(store: SqliteStore) -> None:
    _seed(store)
    folders.set_project(store, Project("work/acme", model="m1"))
    edit = folders.delete_folder(store, "work/acme")
    assert store.tags_under("work/acme") == [] and store.projects() == []
    assert store.get_conversation("chat-0004").tags == ("ideas",)  # type: ignore[union-attr]
    assert store.get_conversation("chat-0003").tags == ("work/beta",)  # type: ignore[union-attr]
    assert store.count_conversations() == 5
    folders.undo_folder_edit(store, edit)
    assert store.get_conversation("chat-0004").tags == ("ideas", "work/acme/q3")  # type: ignore[union-attr]
    assert store.projects() == [Project("work/acme", model="m1")]


def test_smart_folders_are_kept_and_counted(store: SqliteStore) -> None:
    _seed(store)
    store.append_event("chat-0002", "user", "the invoice for acme")
    store.append_event("chat-0005", "user", "an invoice at the workshop")
    saved = folders.save_smart_folder(store, "Acme invoices", "invoice", ["work"])
    folders.save_smart_folder(store, "Ideas", "", ["ideas"])
    assert store.smart_folders() == [saved, SmartFolder("Ideas", "", ("ideas",))]
    counted = dict((f.name, n) for f, n in folders.smart_counts(store))
    assert counted == {"Acme invoices": 1, "Ideas": 1}
    folders.rename_smart_folder(store, "Ideas", "Thoughts")
    assert [f.name for f in store.smart_folders()] == ["Acme invoices", "Thoughts"]
    assert folders.delete_smart_folder(store, "Thoughts").tags == ("ideas",)
    assert [f.name for f in store.smart_folders()] == ["Acme invoices"]
    with pytest.raises(UserError, match="needs words"):
        folders.save_smart_folder(store, "All", "", [])


def test_projects_keep_settings_and_their_files(store: SqliteStore) -> None:
    _seed(store)
    brief = StoredFile(Attachment("ab" * 32, "brief.md", "text/markdown", 5), b"brief", "brief")
    store.put_files([brief])
    project = Project(
        "work/acme", "coder", "ollama", "qwen", "Answer in French.", ("files",), (brief.attachment,)
    )
    folders.set_project(store, project)
    assert folders.project(store, "Work/Acme") == project
    assert folders.project(store, "work") == Project("work")
    # Its files stay stored while the project refers to them (a sweep past the grace
    # a draft's files have: put long ago).
    store._db.execute_sql("UPDATE stored_file SET created_at = 0")
    assert store.remove_unreferenced_files() == 0
    assert store.has_files([brief.sha256]) == {brief.sha256}
    # A project shows in the tree even with no conversation in it; it moves with its folder.
    folders.set_project(store, Project("empty/one", model="m"))
    assert [f.path for f in folders.tree(store)] == ["empty", "ideas", "work", "workshop"]
    folders.rename_folder(store, "work", "job")
    assert [p.folder for p in store.projects()] == ["empty/one", "job/acme"]
    folders.set_project(store, Project("empty/one"))  # sets nothing: removed
    assert [p.folder for p in store.projects()] == ["job/acme"]


def test_a_folder_is_a_range_of_bytes_whatever_the_servers_collation(
    pg_server: Any,
) -> None:
    """On a database whose collation is ICU's en-US, ``work+x`` sorts between ``work/``
    and ``work0``: a folder's range is compared in byte order all the same."""
    name = f"icu_{uuid.uuid4().hex[:8]}"
    pg_server.psql(
        f"CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu "
        "ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"
    )
    store = open_store(pg_server.url(name))
    try:
        add_conversation(store, "chat-0001", tags=("work+x",), updated_at=1.0)
        add_conversation(store, "chat-0002", tags=("work/acme", "work/a_b"), updated_at=2.0)
        assert _ids(store.list_conversations(tags=["work"])) == ["chat-0002"]
        assert store.tags_under("work") == ["work/a_b", "work/acme"]
        assert dict(store.folder_counts())["work"] == 1
        folders.rename_folder(store, "work", "job")
        assert store.get_conversation("chat-0001").tags == ("work+x",)  # type: ignore[union-attr]
    finally:
        store.close()
        pg_server.drop_database(name)

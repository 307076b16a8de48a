# mypy: disable-error-code="no-untyped-call"
"""Folders and projects in the real window over a real SQLite file (issue 26, SPEC §15):
the folder tree above the list with its counts; choosing a folder lists its subtree (with
the tag filter); conversations dropped on a folder are tagged; a folder dropped on another
moves; Delete keeps the conversations and Undo gives the tags back; smart folders; a
project's settings page; New in a project folder."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QByteArray, QMimeData, QPoint, Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.domain.folders import Project
from ikgui.local.paths import resolve
from ikgui.storage import open_store
from ikgui.ui.sidebar.folders import FOLDER_MIME, KindRole, PathRole, conversations_mime
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url
from tests.support.sidebar_rows import top_ids
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, write_config

__all__ = ["closed_url"]

SEED = {
    "chat-aaaa": ("work/acme", "api"),
    "chat-bbbb": ("work/acme/q3",),
    "chat-cccc": ("work/beta", "api"),
    "chat-dddd": ("home",),
    "chat-eeee": (),
}


async def seeded_window(tmp_path: Path, url: str) -> MainWindow:
    home = tmp_path / "home"
    write_config(home, url)
    now = time.time()
    with open_store(resolve(home).database) as store:
        for i, (cid, tags) in enumerate(SEED.items()):
            when = now - 10 * (i + 1)
            conv = Conversation(id=cid, title=cid, tags=tags, created_at=when, updated_at=when)
            store.insert_conversation(conv)
    return await opened(home)


def listed(bar: ConversationSidebar) -> list[str]:
    return top_ids(bar.model)


def tags_of(win: MainWindow) -> dict[str, tuple[str, ...]]:
    return {c.id: c.tags for c in win.store.list_conversations()}


def centre(bar: ConversationSidebar, kind: str, key: str) -> QPoint:
    tree = bar.folders
    item = tree.item_for(kind, key)
    assert item is not None
    parent = item.parent()
    while parent is not None:
        parent.setExpanded(True)
        parent = parent.parent()
    return tree.visualItemRect(item).center()


async def test_the_tree_counts_each_folders_subtree_and_choosing_one_filters_the_list(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar = win.sidebar
        tree = bar.folders
        assert tree.objectName() == "folderTree" and tree.isVisible()
        assert tree.counts() == {
            "api": 2,  # a plain tag is a folder too
            "home": 1,
            "work": 3,
            "work/acme": 2,
            "work/acme/q3": 1,
            "work/beta": 1,
        }
        everything = tree.item_for("all", "")
        assert everything is not None and everything.text(1) == "5"
        acme = tree.item_for("folder", "work/acme")
        assert acme is not None
        spoken = acme.data(0, Qt.ItemDataRole.AccessibleTextRole)
        assert spoken == "acme, folder, 2 conversations"

        # Keyboard: from All, Down to "api", "home", "work"; Enter chooses it.
        tree.setFocus()
        tree.setCurrentItem(everything)
        for _ in range(3):
            QTest.keyClick(tree, Qt.Key.Key_Down)
        QTest.keyClick(tree, Qt.Key.Key_Return)
        assert tree.folder == "work"
        assert sorted(listed(bar)) == ["chat-aaaa", "chat-bbbb", "chat-cccc"]
        QTest.keyClick(tree, Qt.Key.Key_Right)  # unfolds
        assert tree.currentItem().isExpanded()

        # Choosing reads the list's first page, not the tree's counts again (the whole
        # store's, whatever the filter).
        reads: list[object] = []
        counts = win.store.folder_counts
        win.store.folder_counts = lambda **kw: reads.append(kw) or counts(**kw)  # type: ignore[method-assign]
        tree.choose("folder", "work/acme")
        tree.choose("folder", "work")
        assert reads == []
        del win.store.folder_counts

        # With the tag filter: work AND api.
        bar.tag_filters.choose(["api"])
        await wait_until(lambda: sorted(listed(bar)) == ["chat-aaaa", "chat-cccc"])
        tree.choose("folder", "work/acme")
        assert listed(bar) == ["chat-aaaa"]
        bar.tag_filters.choose([])
        assert sorted(listed(bar)) == ["chat-aaaa", "chat-bbbb"]

        # With the search: its hits inside the folder only.
        tree.choose("folder", "work")
        bar.search_box.setText("chat")
        bar._run_search()
        hits = [
            bar.search_model.index(r, 0).data(Qt.ItemDataRole.UserRole + 2)
            for r in range(bar.search_model.rowCount())
        ]
        assert sorted(hits) == ["chat-aaaa", "chat-bbbb", "chat-cccc"]
        bar.search_box.clear()

        tree.setFocus()
        QTest.keyClick(tree, Qt.Key.Key_Escape)  # back to everything
        assert tree.folder == "" and len(listed(bar)) == 5
    finally:
        await closed(win)


async def test_dropping_rows_on_a_folder_tags_them_and_a_folder_dropped_on_another_moves(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar = win.sidebar
        tree = bar.folders
        # The list drags its selection: its model's data carries the ids.
        indexes = [bar.model.reveal("chat-dddd"), bar.model.reveal("chat-eeee")]
        data = bar.model.mimeData(indexes)
        assert bytes(data.data("application/x-ikgui-conversations").data()).split() == [
            b"chat-dddd",
            b"chat-eeee",
        ]
        assert tree.drop(data, centre(bar, "folder", "work/beta"))
        await wait_until(lambda: tags_of(win)["chat-eeee"] == ("work/beta",))
        assert tags_of(win)["chat-dddd"] == ("home", "work/beta")
        await wait_until(lambda: tree.counts()["work/beta"] == 3)
        # A drop on All (not a folder) tags nothing.
        assert not tree.drop(conversations_mime(["chat-aaaa"]), centre(bar, "all", ""))

        # work/beta dragged onto home: it becomes home/beta, everything in it follows.
        move = QMimeData()
        move.setData(FOLDER_MIME, QByteArray(b"work/beta"))
        assert not tree.drop(move, centre(bar, "folder", "work/beta"))  # not into itself
        assert tree.drop(move, centre(bar, "folder", "home"))
        await wait_until(lambda: tags_of(win)["chat-cccc"] == ("api", "home/beta"))
        assert "work/beta" not in tree.counts() and tree.counts()["home/beta"] == 3
    finally:
        await closed(win)


async def test_deleting_a_folder_keeps_its_conversations_and_undo_gives_the_tags_back(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar = win.sidebar
        tree = bar.folders
        tree.choose("folder", "work/acme")
        tree.setFocus()
        QTest.keyClick(tree, Qt.Key.Key_Delete)
        assert tags_of(win)["chat-aaaa"] == ("api",) and tags_of(win)["chat-bbbb"] == ()
        assert len(win.store.list_conversations()) == 5  # never a conversation
        assert "work/acme" not in tree.counts() and tree.folder == ""
        assert tree.undo == "delete of folder 'work/acme'"
        menu = tree.menu_for(tree.item_for("all", ""))
        assert "Undo the delete of folder 'work/acme'" in [a.text() for a in menu.actions()]
        tree.setFocus()
        QTest.keySequence(tree, "Ctrl+Z")
        assert tags_of(win)["chat-aaaa"] == ("api", "work/acme")
        assert tags_of(win)["chat-bbbb"] == ("work/acme/q3",)
        assert tree.counts()["work/acme"] == 2 and tree.undo is None

        # Rename (a path moves it), and Undo of that too.
        win.commands.selection.rename_folder("work", "job")
        assert tags_of(win)["chat-bbbb"] == ("job/acme/q3",)
        assert set(tree.counts()) == {"api", "home", "job", "job/acme", "job/acme/q3", "job/beta"}
        win.commands.selection.undo_tag_edit()
        assert tags_of(win)["chat-bbbb"] == ("work/acme/q3",)
    finally:
        await closed(win)


async def test_new_folder_appears_empty_until_a_conversation_is_dropped_on_it(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar = win.sidebar
        bar.add_folder("work/gamma")
        assert bar.folders.counts()["work/gamma"] == 0
        assert bar.folders.drop(
            conversations_mime(["chat-eeee"]), centre(bar, "folder", "work/gamma")
        )
        assert tags_of(win)["chat-eeee"] == ("work/gamma",)
        assert bar.folders.counts()["work/gamma"] == 1 and not bar.folders.made
    finally:
        await closed(win)


async def test_a_smart_folder_keeps_the_search_and_tags_with_a_live_count(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar = win.sidebar
        tree = bar.folders
        bar.tag_filters.choose(["api"])
        win.commands.selection.save_smart_folder("API work", "", ["api"])
        item = tree.item_for("smart", "API work")
        assert item is not None and item.text(1) == "2"
        assert item.data(0, Qt.ItemDataRole.AccessibleTextRole) == (
            "API work, smart folder, 2 conversations"
        )
        bar.tag_filters.choose([])
        assert len(listed(bar)) == 5
        tree.choose("smart", "API work")
        assert bar.tag_filters.chosen == ("api",)
        assert sorted(listed(bar)) == ["chat-aaaa", "chat-cccc"]
        # Live: a conversation tagged api later counts.
        win.commands.selection.retag_many(["chat-eeee"], ["+api"])
        assert tree.item_for("smart", "API work").text(1) == "3"  # type: ignore[union-attr]
        win.commands.selection.rename_smart_folder("API work", "API")
        assert tree.item_for("smart", "API") is not None and tree.chosen == ("smart", "API")
        win.commands.selection.delete_smart_folder("API")
        assert tree.item_for("smart", "API") is None
        assert [f.name for f in win.store.smart_folders()] == []
    finally:
        await closed(win)


async def test_a_project_folders_settings_page_and_new_inside_it(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar = win.sidebar
        tree = bar.folders
        menu = tree.menu_for(tree.item_for("folder", "work/acme"))
        action = next(a for a in menu.actions() if a.text() == "Make a project…")
        action.trigger()
        page = win.commands.selection.project_page
        assert page is not None and page.objectName() == "folderSettings"
        page.model_edit.setText("acme-model")
        page.prompt_edit.setPlainText("You work for ACME.")
        page.tools_edit.setText("none")
        page.add_files([str(_file(tmp_path))])
        assert [a.name for a in page.files()] == ["brief.txt"]
        page._accept()
        (project,) = win.store.projects()
        assert (project.folder, project.model, project.system_prompt) == (
            "work/acme",
            "acme-model",
            "You work for ACME.",
        )
        assert project.tools == () and [a.name for a in project.files] == ["brief.txt"]
        item = tree.item_for("folder", "work/acme")
        assert item is not None and "project folder" in item.data(
            0, Qt.ItemDataRole.AccessibleTextRole
        )

        # New (Ctrl+N's action) with the project's subfolder chosen: in it, its model.
        tree.choose("folder", "work/acme/q3")
        win.toolbar_actions["actionNew"].trigger()
        await wait_until(lambda: not win.session.saved and win.session.conversation.tags != ())
        conv = win.session.conversation
        assert conv.tags == ("work/acme/q3",) and conv.model == "acme-model"
        assert [a.name for a in win.session.project_files()] == ["brief.txt"]
        parts = win.session.system_parts()
        assert [p.label() for p in parts if p.source == "project"] == ["project work/acme"]

        # Outside a folder, New is a plain one again.
        tree.choose("all", "")
        win.toolbar_actions["actionNew"].trigger()
        await wait_until(lambda: win.session.conversation.tags == ())
        assert win.session.conversation.model != "acme-model"
        assert win.store.projects() == [
            Project(
                "work/acme",
                model="acme-model",
                system_prompt="You work for ACME.",
                tools=(),
                files=project.files,
            )
        ]
    finally:
        await closed(win)


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "brief.txt"
    path.write_text("The ACME brief.\n", encoding="utf-8")
    return path


def test_kinds_are_named_for_screen_readers_and_tests() -> None:
    assert (int(PathRole), int(KindRole)) == (
        int(Qt.ItemDataRole.UserRole),
        int(Qt.ItemDataRole.UserRole) + 1,
    )


async def test_with_no_tag_the_tree_gives_its_room_to_the_list_and_a_first_tag_brings_it(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, closed_url)
    with open_store(resolve(home).database) as store:
        store.insert_conversation(Conversation(id="chat-aaaa", title="untagged"))
    win = await opened(home)
    try:
        bar = win.sidebar
        tree = bar.folders
        await wait_until(lambda: listed(bar) == ["chat-aaaa"])
        assert not tree.isVisible()  # only "All conversations": nothing to choose
        win.commands.selection.retag_many(["chat-aaaa"], ["+work/acme"])
        await wait_until(lambda: tree.isVisible() and "work/acme" in tree.counts())
    finally:
        await closed(win)


async def test_a_few_folders_take_only_their_rows_the_list_the_rest(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        tree = win.sidebar.folders
        rows = 1 + tree.topLevelItemCount() - 1  # All, then the top folders (folded)
        await wait_until(lambda: tree.isVisible() and tree.counts())
        tree.collapseAll()
        fitted = tree.maximumHeight()
        assert fitted <= (rows + 1) * tree.sizeHintForRow(0) + 2 * tree.frameWidth() + 4
        tree.expandAll()  # more rows shown: more room asked for
        assert tree.maximumHeight() > fitted
    finally:
        await closed(win)

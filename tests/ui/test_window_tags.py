# mypy: disable-error-code="no-untyped-call"
"""Tags across conversations and several rows at once, through the real window on a real
SQLite file (issue 12, items 5 and 6): the Manage tags dialog renames, merges and
deletes a tag everywhere; a selection is tagged, untagged, exported and trashed."""

from __future__ import annotations

import json
import time
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.local.paths import resolve
from ikgui.storage import open_store
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url
from tests.support.sidebar_rows import top_ids
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, write_config

__all__ = ["closed_url"]

SEED = {
    "chat-aaaa": ("work", "api"),
    "chat-bbbb": ("work",),
    "chat-cccc": ("api", "ideas"),
    "chat-dddd": ("work", "api", "ideas"),
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


def tags_of(win: MainWindow) -> dict[str, tuple[str, ...]]:
    return {c.id: c.tags for c in win.store.list_conversations() + _trash(win)}


def _trash(win: MainWindow) -> list[Conversation]:
    return win.store.list_conversations(trashed=True)


def _rows(bar: ConversationSidebar) -> list[str]:
    return top_ids(bar.model)


async def test_manage_tags_renames_merges_and_deletes_everywhere(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar = win.sidebar
        bar.tag_filters.choose(["work"])
        dialog = bar.open_manage_tags()
        dialog.select("ideas")
        dialog.name_edit.setText("api")  # onto a tag in use: a merge
        assert dialog.rename_button.text() == "Merge"
        qtbot.mouseClick(dialog.rename_button, Qt.MouseButton.LeftButton)
        _answer(dialog.confirmation, "Merge")
        assert tags_of(win)["chat-cccc"] == ("api",)
        assert tags_of(win)["chat-dddd"] == ("api", "work")
        assert sorted(dialog.counts) == ["api", "work"]  # the dialog shows the new state
        assert "ideas" not in [bar.tag_filter.itemData(i) for i in range(bar.tag_filter.count())]

        dialog.select("work")
        dialog.name_edit.setText("Job")
        qtbot.mouseClick(dialog.rename_button, Qt.MouseButton.LeftButton)
        assert [t for t in tags_of(win).values() if "work" in t] == []
        assert sum("job" in t for t in tags_of(win).values()) == 3
        assert bar.tag_filters.chosen == ("job",)  # the filter followed the rename
        assert _rows(bar) == ["chat-aaaa", "chat-bbbb", "chat-dddd"]
        assert "on 3 conversations" in win.statusBar().currentMessage()

        dialog.select("job")
        qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
        box = dialog.confirmation
        assert box is not None and "from 3 conversations" in box.text()
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
        assert all("job" not in t for t in tags_of(win).values())
        assert bar.tag_filters.chosen == () and len(_rows(bar)) == 4
        assert list(dialog.counts) == ["api"]
        dialog.close()
    finally:
        await closed(win)


def _answer(box: QMessageBox | None, verb: str) -> None:
    assert box is not None and box.isVisible()
    yes = box.button(QMessageBox.StandardButton.Yes)
    assert yes.text() == verb
    yes.click()


async def test_manage_tags_selects_the_name_confirms_a_merge_and_undoes_exactly(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    """Issue 20, item 5: a click into the pre-filled field then typing replaces the name
    (no "ideasjobs"); a rename onto a tag in use asks first, naming both counts; the
    selection follows the renamed tag; Ctrl+Z in the dialog reverses each change exactly
    (a merge gives the old tag back only to the conversations that had it)."""
    win = await seeded_window(tmp_path, closed_url)
    try:
        before = tags_of(win)
        dialog = win.sidebar.open_manage_tags()
        dialog.activateWindow()
        await wait_until(dialog.isActiveWindow)
        assert not dialog.undo_button.isEnabled()
        dialog.select("ideas")
        qtbot.mouseClick(dialog.name_edit, Qt.MouseButton.LeftButton)
        assert QApplication.focusWidget() is dialog.name_edit
        qtbot.keyClicks(dialog.name_edit, "jobs")
        assert dialog.name_edit.text() == "jobs"
        dialog.select("work")  # work (3), then picked again after a click elsewhere
        dialog.table.setFocus()
        qtbot.mouseClick(dialog.name_edit, Qt.MouseButton.LeftButton, pos=QPoint(4, 4))
        qtbot.keyClicks(dialog.name_edit, "api")
        assert dialog.name_edit.text() == "api" and dialog.rename_button.text() == "Merge"
        qtbot.keyClick(dialog.name_edit, Qt.Key.Key_Return)
        box = dialog.confirmation
        assert box is not None and box.text() == "Merge “work” (3) into “api” (3)?"
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
        assert tags_of(win) == before  # nothing merged without a yes
        qtbot.keyClick(dialog.name_edit, Qt.Key.Key_Return)
        _answer(dialog.confirmation, "Merge")
        merged = {"chat-aaaa": ("api",), "chat-bbbb": ("api",), "chat-dddd": ("api", "ideas")}
        assert tags_of(win) == {**before, **merged}
        assert dialog.selected_tag() == "api" and dialog.undo_button.isEnabled()

        dialog.select("ideas")  # a rename: "ideas" sorts after "api"; "zen" after both
        dialog.name_edit.setText("zen")
        qtbot.mouseClick(dialog.rename_button, Qt.MouseButton.LeftButton)
        assert dialog.selected_tag() == "zen" and "api" in dialog.counts

        dialog.name_edit.setFocus()
        qtbot.keyClick(dialog.name_edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        await wait_until(lambda: "zen" not in dialog.counts)
        assert tags_of(win) == {**before, **merged} and dialog.selected_tag() == "ideas"
        qtbot.keyClick(dialog.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        await wait_until(lambda: "work" in dialog.counts)
        assert tags_of(win) == before  # chat-aaaa and chat-dddd had "api" already: kept
        assert not dialog.undo_button.isEnabled()
        assert "Undone" in win.statusBar().currentMessage()

        dialog.select("ideas")
        qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
        _answer(dialog.confirmation, "Delete")
        assert "ideas" not in dialog.counts
        qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
        assert tags_of(win) == before
        dialog.close()
    finally:
        await closed(win)


def _ctrl_click(bar: ConversationSidebar, qtbot: QtBot, conv_id: str, first: bool) -> None:
    rect = bar.view.visualRect(bar.model.reveal(conv_id))
    held = Qt.KeyboardModifier.NoModifier if first else Qt.KeyboardModifier.ControlModifier
    qtbot.mouseClick(
        bar.view.viewport(), Qt.MouseButton.LeftButton, held, rect.topLeft() + QPoint(30, 12)
    )


def _trigger(menu: QMenu, name: str) -> None:
    for action in menu.actions():
        if action.objectName() == name:
            action.trigger()
            return
        sub = action.menu()
        if isinstance(sub, QMenu):
            for inner in sub.actions():
                if inner.objectName() == name:
                    inner.trigger()
                    return
    raise AssertionError(f"no {name} in the menu")


async def test_a_selection_is_tagged_untagged_exported_and_trashed_at_once(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar = win.sidebar
        _ctrl_click(bar, qtbot, "chat-aaaa", True)
        await wait_until(lambda: win.current_id == "chat-aaaa")
        _ctrl_click(bar, qtbot, "chat-cccc", False)
        _ctrl_click(bar, qtbot, "chat-bbbb", False)
        assert win.current_id == "chat-aaaa"  # Ctrl-click selects, it does not open
        chosen = [c.id for c in bar.selected_conversations()]
        assert chosen == ["chat-aaaa", "chat-bbbb", "chat-cccc"]

        menu = bar.menu_for(bar.model.reveal("chat-cccc"))
        assert menu is not None
        _trigger(menu, "addTagAction")
        editor = bar.tag_editor
        assert editor is not None and editor.conversation_id is None
        editor.line.setText("urgent, later")
        editor.accept()
        tags = tags_of(win)
        assert tags["chat-aaaa"] == ("api", "later", "urgent", "work")
        assert tags["chat-bbbb"] == ("later", "urgent", "work")
        assert tags["chat-cccc"] == ("api", "ideas", "later", "urgent")
        assert tags["chat-dddd"] == ("api", "ideas", "work")  # not selected: unchanged
        assert [c.id for c in bar.selected_conversations()] == chosen  # selection kept

        menu = bar.menu_for(bar.model.reveal("chat-aaaa"))
        assert menu is not None
        _trigger(menu, "removeTag:work")
        tags = tags_of(win)
        assert "work" not in tags["chat-aaaa"] + tags["chat-bbbb"]
        assert "work" in tags["chat-dddd"]

        out = tmp_path / "out"
        out.mkdir()
        written = win.commands.selection.export_to(chosen, out)
        assert sorted(p.name for p in written) == [f"{c}.json" for c in chosen]
        assert json.loads((out / "chat-bbbb.json").read_text("utf-8"))

        bar.view.setFocus()
        qtbot.keyClick(bar.view, Qt.Key.Key_Delete)
        await wait_until(lambda: len(_trash(win)) == 3)
        assert sorted(c.id for c in _trash(win)) == chosen
        assert _rows(bar) == ["chat-dddd"]
        assert win.current_id == "chat-dddd"  # the open one went: the newest left opens
        assert "Moved 3 conversations to the Trash" in win.statusBar().currentMessage()
    finally:
        await closed(win)


async def test_the_toolbar_s_tags_and_delete_act_on_a_selection(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await seeded_window(tmp_path, closed_url)
    try:
        bar, actions = win.sidebar, win.toolbar_actions
        _ctrl_click(bar, qtbot, "chat-bbbb", True)
        await wait_until(lambda: win.current_id == "chat-bbbb")
        actions["actionTags"].trigger()  # one row selected: its own tag editor
        editor = bar.tag_editor
        assert editor is not None and editor.conversation_id == "chat-bbbb"
        editor.reject()
        _ctrl_click(bar, qtbot, "chat-dddd", False)
        actions["actionTags"].trigger()
        editor = bar.tag_editor
        assert editor is not None and editor.conversation_id is None
        editor.line.setText("both ")
        editor.accept()
        assert [t for t in tags_of(win).values() if "both" in t] == [
            ("both", "work"),
            ("api", "both", "ideas", "work"),
        ]
        actions["actionDelete"].trigger()
        await wait_until(lambda: len(_trash(win)) == 2)
        assert sorted(c.id for c in _trash(win)) == ["chat-bbbb", "chat-dddd"]
    finally:
        await closed(win)

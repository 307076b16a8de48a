# mypy: disable-error-code="no-untyped-call"
"""Tags in the sidebar (issue 12, items 5 and 6) over a real SQLite store: a click on a
row's tag chip filters; a two-tag filter matches all and shows counts as removable chips;
the Manage tags dialog asks for renames, merges and deletes; several selected rows are
tagged or trashed at once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.storage import SqliteStore, open_store
from ikgui.ui.sidebar.conversation_model import IdRole
from ikgui.ui.sidebar.panel import ConversationSidebar
from tests.support.sidebar_rows import top_ids


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = open_store(tmp_path / "ikgui.db")
    yield opened
    opened.close()


def add(store: SqliteStore, cid: str, ago: float, *tags: str) -> None:
    now = time.time()
    store.insert_conversation(
        Conversation(
            id=cid, title=f"Title of {cid}", tags=tags, created_at=now - ago, updated_at=now - ago
        )
    )


@pytest.fixture
def sidebar(qtbot: QtBot, store: SqliteStore) -> ConversationSidebar:
    add(store, "chat-aaaa", 10, "work", "api")
    add(store, "chat-bbbb", 20, "work")
    add(store, "chat-cccc", 30, "api", "ideas")
    add(store, "chat-dddd", 40, "work", "api", "ideas")
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    bar.resize(340, 600)
    bar.show()
    qtbot.waitExposed(bar)
    return bar


def row_of(bar: ConversationSidebar, conv_id: str) -> QModelIndex:
    index = bar.model.reveal(conv_id)
    assert index.isValid()
    return index


def chip_point(bar: ConversationSidebar, conv_id: str, tag: str) -> QPoint:
    """A point on the chip of ``tag`` in ``conv_id``'s row, found by asking the view."""
    rect = bar.view.visualRect(row_of(bar, conv_id))
    for y in range(rect.top(), rect.bottom(), 2):
        for x in range(rect.left(), rect.right(), 2):
            if bar.view.tag_at(QPoint(x, y)) == tag:
                return QPoint(x, y)
    raise AssertionError(f"no chip {tag} on {conv_id}")


def box_texts(bar: ConversationSidebar) -> list[str]:
    box = bar.tag_filter
    return [box.itemText(i) for i in range(box.count())]


def test_clicking_a_rows_chip_filters_by_that_tag(
    sidebar: ConversationSidebar, qtbot: QtBot
) -> None:
    opened: list[str] = []
    sidebar.conversation_activated.connect(lambda cid, _e: opened.append(cid))
    where = chip_point(sidebar, "chat-cccc", "ideas")
    qtbot.mouseClick(sidebar.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert sidebar.tag_filters.chosen == ("ideas",)
    assert top_ids(sidebar.model) == ["chat-cccc", "chat-dddd"]
    assert opened == []  # the chip filtered; it did not open the row
    assert not sidebar.view.selectionModel().hasSelection()
    assert sidebar.tag_filters.chips.isVisible()
    # the title is not a chip: clicking it opens the conversation as before
    title = sidebar.view.visualRect(row_of(sidebar, "chat-dddd")).topLeft() + QPoint(30, 12)
    assert sidebar.view.tag_at(title) is None
    qtbot.mouseClick(sidebar.view.viewport(), Qt.MouseButton.LeftButton, pos=title)
    assert opened == ["chat-dddd"]


def test_a_two_tag_filter_matches_all_and_shows_counts(
    sidebar: ConversationSidebar, qtbot: QtBot
) -> None:
    assert box_texts(sidebar) == ["Filter by tag", "#api  (3)", "#ideas  (2)", "#work  (3)"]
    sidebar.tag_filter.setCurrentIndex(sidebar.tag_filter.findData("work"))
    # counts narrow to the rows shown; the chosen tag leaves the box for a chip
    assert box_texts(sidebar) == ["Filter by tag", "#api  (2)", "#ideas  (1)"]
    sidebar.tag_filter.setCurrentIndex(sidebar.tag_filter.findData("api"))
    assert sidebar.tag_filters.chosen == ("api", "work")
    assert top_ids(sidebar.model) == ["chat-aaaa", "chat-dddd"]
    chips = sidebar.tag_filters.chips
    assert {t: c.text() for t, c in chips.chips.items()} == {
        "api": "#api  3  ✕",
        "work": "#work  3  ✕",
    }
    assert chips.summary == "2 conversations with all"
    assert box_texts(sidebar) == ["Filter by tag", "#ideas  (1)"]

    qtbot.mouseClick(chips.chips["work"], Qt.MouseButton.LeftButton)
    assert sidebar.tag_filters.chosen == ("api",)
    assert top_ids(sidebar.model) == ["chat-aaaa", "chat-cccc", "chat-dddd"]
    clear = chips.findChild(type(chips.chips["api"]), "clearTagFilter")
    assert clear is not None
    qtbot.mouseClick(clear, Qt.MouseButton.LeftButton)
    assert sidebar.tag_filters.chosen == () and not chips.isVisible()
    assert len(top_ids(sidebar.model)) == 4


def test_search_results_keep_the_tag_filter(sidebar: ConversationSidebar) -> None:
    sidebar.tag_filters.choose(["api", "ideas"])
    sidebar.search_box.setText("Title")
    sidebar._run_search()
    ids = [sidebar.search_model.index(r, 0).data(IdRole) for r in range(2)]
    assert sidebar.search_model.rowCount() == 2 and set(ids) == {"chat-cccc", "chat-dddd"}


def test_manage_tags_lists_counts_and_asks_for_rename_merge_delete(
    sidebar: ConversationSidebar, store: SqliteStore, qtbot: QtBot
) -> None:
    store.update_conversation("chat-bbbb", trashed_at=time.time())
    sidebar.reload()
    asked: list[tuple[str, ...]] = []
    sidebar.tag_rename_requested.connect(lambda old, new: asked.append(("rename", old, new)))
    sidebar.tag_delete_requested.connect(lambda tag: asked.append(("delete", tag)))
    qtbot.mouseClick(sidebar.manage_button, Qt.MouseButton.LeftButton)
    dialog = sidebar.manage_dialog
    assert dialog is not None and dialog.isVisible()
    table = dialog.table.model()
    rows = [tuple(table.index(r, c).data() for c in range(3)) for r in range(table.rowCount())]
    assert rows == [("#api", "3", ""), ("#ideas", "2", ""), ("#work", "2", "1")]

    dialog.select("ideas")
    assert dialog.name_edit.text() == "ideas" and not dialog.rename_button.isEnabled()
    dialog.name_edit.setText("Bad tag!")
    assert not dialog.rename_button.isEnabled()
    assert dialog.message.text().startswith("Invalid tag 'Bad tag!'")
    dialog.name_edit.setText("#API")
    assert dialog.rename_button.text() == "Merge" and dialog.rename_button.isEnabled()
    dialog.name_edit.setText("thoughts")
    assert dialog.rename_button.text() == "Rename"
    qtbot.mouseClick(dialog.rename_button, Qt.MouseButton.LeftButton)
    assert asked == [("rename", "ideas", "thoughts")]

    dialog.select("work")
    qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
    box = dialog.confirmation
    assert box is not None and box.isVisible()
    assert box.text() == "Remove the tag “work” from 3 conversations?"
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert asked == [("rename", "ideas", "thoughts")]
    qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
    box = dialog.confirmation
    assert box is not None
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert asked[-1] == ("delete", "work")


def _select_rows(bar: ConversationSidebar, qtbot: QtBot, *conv_ids: str) -> None:
    """Click the first row, Ctrl-click the others (what a user does)."""
    for i, conv_id in enumerate(conv_ids):
        rect = bar.view.visualRect(row_of(bar, conv_id))
        held = Qt.KeyboardModifier.ControlModifier if i else Qt.KeyboardModifier.NoModifier
        qtbot.mouseClick(
            bar.view.viewport(), Qt.MouseButton.LeftButton, held, rect.topLeft() + QPoint(30, 12)
        )


def test_ctrl_and_shift_extend_the_selection_without_opening(
    sidebar: ConversationSidebar, qtbot: QtBot
) -> None:
    opened: list[str] = []
    sidebar.conversation_activated.connect(lambda cid, _e: opened.append(cid))
    _select_rows(sidebar, qtbot, "chat-aaaa", "chat-cccc")
    assert [c.id for c in sidebar.selected_conversations()] == ["chat-aaaa", "chat-cccc"]
    assert opened == ["chat-aaaa"]
    sidebar.view.setFocus()
    qtbot.keyClick(sidebar.view, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert [c.id for c in sidebar.selected_conversations()] == [
        "chat-aaaa",
        "chat-cccc",
        "chat-dddd",
    ]
    menu = sidebar.menu_for(row_of(sidebar, "chat-cccc"))
    assert menu is not None and menu.objectName() == "selectionMenu"
    names = [a.objectName() for a in menu.actions() if a.objectName()]
    assert names == ["addTagAction", "exportAction", "trashAction"]
    assert "pinAction" not in names  # pinning is not there yet: the hook is off
    sidebar.pinning = True
    menu = sidebar.menu_for(row_of(sidebar, "chat-cccc"))
    assert menu is not None and any(a.objectName() == "pinAction" for a in menu.actions())
    # a row outside the selection gets its own menu
    sidebar.view.selectionModel().select(
        row_of(sidebar, "chat-bbbb"), QItemSelectionModel.SelectionFlag.Deselect
    )
    menu = sidebar.menu_for(row_of(sidebar, "chat-bbbb"))
    assert menu is not None and menu.objectName() == "conversationMenu"


def test_counts_follow_a_conversation_tagged_with_a_tag_in_use(
    sidebar: ConversationSidebar, store: SqliteStore
) -> None:
    sidebar.tag_filters.choose(["ideas"])
    chips = sidebar.tag_filters.chips
    assert chips.chips["ideas"].text() == "#ideas  2  ✕"
    store.set_tags("chat-bbbb", ["work", "ideas"])
    sidebar.refresh_conversation("chat-bbbb")  # what the window does after a retag
    assert chips.chips["ideas"].text() == "#ideas  3  ✕"
    assert box_texts(sidebar) == ["Filter by tag", "#api  (2)", "#work  (2)"]
    assert top_ids(sidebar.model) == ["chat-bbbb", "chat-cccc", "chat-dddd"]

"""The Trash view (issue 12, item 8): it opens at the top, says when each item was
trashed, restores the selection (a list of ids) and empties the Trash after a
confirmation that names the count."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from ikgui.storage.repository import SqliteStore
from ikgui.ui.sidebar.rows import DetailRole, IdRole
from tests.support.sidebar_rows import top, top_ids
from tests.ui.test_sidebar import HOUR, Make, add, db_path, make_sidebar, store

__all__ = ["db_path", "make_sidebar", "store"]


def fill(store: SqliteStore, live: int, trashed: int) -> None:
    with store.transaction():
        for i in range(live):
            add(store, f"chat-l{i:03d}", ago=i * 60.0)
        for i in range(trashed):
            add(store, f"chat-t{i:03d}", ago=i * 60.0 + 30, trashed=True)


def test_the_trash_opens_at_the_top_even_after_scrolling_the_list(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    fill(store, 300, 150)
    sidebar = make_sidebar()
    sidebar.set_current("chat-l250")  # far down the list: the view scrolls to it
    bar = sidebar.view.verticalScrollBar()
    assert bar.value() > 0
    qtbot.mouseClick(sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    assert top_ids(sidebar.model)[0] == "chat-t000"
    assert bar.value() == 0
    # the list's first row (the header of the newest group) is at the top, and the
    # newest trashed conversation in view right under it
    view = sidebar.view
    assert view.indexAt(view.rect().topLeft()).row() == 0
    first = top(sidebar.model, 0)
    assert first.data(IdRole) == "chat-t000" and first.row() <= 1
    assert view.viewport().rect().contains(view.visualRect(first))


def test_trashed_rows_say_when_they_were_trashed_and_the_bar_counts_them(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-live", ago=10)
    add(store, "chat-gone", ago=3 * HOUR, trashed=True)
    add(store, "chat-gone2", ago=5 * HOUR, trashed=True)
    sidebar = make_sidebar()
    trash = sidebar.trash
    assert trash.bar.isHidden()
    qtbot.mouseClick(sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    assert trash.bar.isVisible()
    assert trash.bar.label.text().startswith("2 conversations in the Trash.")
    assert top(sidebar.model, 0).data(DetailRole).startswith("trashed 3h ago · 0 messages · ")
    assert "moved to the Trash 3h ago" in top(sidebar.model, 0).data(
        Qt.ItemDataRole.AccessibleTextRole
    )
    assert not trash.bar.restore_button.isEnabled()  # nothing selected yet
    assert trash.bar.empty_button.isEnabled()


def test_restore_takes_the_selection_as_a_list(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-gone", ago=20, trashed=True)
    add(store, "chat-gone2", ago=30, trashed=True)
    sidebar = make_sidebar()
    qtbot.mouseClick(sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    sidebar.view.selectionModel().setCurrentIndex(
        top(sidebar.model, 1), QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    assert sidebar.trash.bar.restore_button.isEnabled()
    with qtbot.waitSignal(sidebar.restore_requested) as signal:
        qtbot.mouseClick(sidebar.trash.bar.restore_button, Qt.MouseButton.LeftButton)
    assert signal.args == [["chat-gone2"]]


def answer_empty_trash(click: str, seen: list[str]) -> None:
    """When the question shows, note its text and click ``click``."""

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        seen.append(box.text())
        button = next(b for b in box.buttons() if b.text().replace("&", "") == click)
        button.click()

    QTimer.singleShot(20, answer)


def test_empty_trash_asks_naming_the_count(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-gone", ago=20, trashed=True)
    add(store, "chat-gone2", ago=30, trashed=True)
    add(store, "chat-gone3", ago=40, trashed=True)
    sidebar = make_sidebar()
    qtbot.mouseClick(sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    emitted: list[bool] = []
    sidebar.empty_trash_requested.connect(lambda: emitted.append(True))
    seen: list[str] = []
    answer_empty_trash("Cancel", seen)
    sidebar.trash.bar.empty_button.click()  # (the question is window-modal: it returns)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None and len(seen) == 1)
    assert seen == ["Delete the 3 conversations in the Trash for good? This cannot be undone."]
    assert emitted == []
    answer_empty_trash("Empty Trash", seen)
    sidebar.trash.bar.empty_button.click()
    qtbot.waitUntil(lambda: emitted == [True])

"""The list and the folder tree together (issue 26): with a folder chosen, the tag box
counts the conversations in the folder (its subtree), as the list shows them; a drag from
the list is one the tree takes."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.domain.ports import Store
from ikgui.storage import open_store
from ikgui.ui.sidebar.panel import ConversationSidebar
from tests.support.sidebar_rows import top_ids


def sidebar_over(
    tmp_path: Path, qtbot: QtBot, tagged: dict[str, tuple[str, ...]]
) -> tuple[Store, ConversationSidebar]:
    """A shown sidebar over a store of ``tagged`` conversations, newest first."""
    store = open_store(tmp_path / "ikgui.db")
    now = time.time()
    for n, (conv_id, tags) in enumerate(tagged.items()):
        at = now - n * 60
        store.insert_conversation(Conversation(conv_id, created_at=at, updated_at=at, tags=tags))
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    bar.resize(300, 720)
    bar.show()
    return store, bar


def box_counts(bar: ConversationSidebar) -> dict[str, str]:
    box = bar.tag_filter
    return {box.itemData(i): box.itemText(i) for i in range(1, box.count()) if box.itemData(i)}


def test_the_tag_boxs_counts_are_the_chosen_folders(tmp_path: Path, qtbot: QtBot) -> None:
    tagged = {
        "c1": ("work/acme", "urgent"),
        "c2": ("work/beta", "urgent"),
        "c3": ("work/acme",),
        "c4": ("home", "urgent"),
        "c5": ("home", "urgent"),
        "c6": ("home", "urgent"),
    }
    store, bar = sidebar_over(tmp_path, qtbot, tagged)
    try:
        assert box_counts(bar)["urgent"] == "#urgent  (5)"  # everywhere
        bar.folders.choose("folder", "work")
        qtbot.waitUntil(lambda: sorted(top_ids(bar.model)) == ["c1", "c2", "c3"])
        counts = box_counts(bar)
        assert counts["urgent"] == "#urgent  (2)"  # in work/… only
        assert "home" not in counts  # no conversation of the folder has it
        bar.folders.choose("all", "")
        qtbot.waitUntil(lambda: len(top_ids(bar.model)) == 6)
        assert box_counts(bar)["urgent"] == "#urgent  (5)"
    finally:
        bar.close()
        store.close()


def test_a_drag_from_the_list_is_one_the_folder_tree_takes(tmp_path: Path, qtbot: QtBot) -> None:
    """The list offers its rows with the actions its model says (a copy: filing tags the
    conversation, it stays listed); the folder tree accepts that drag over a folder and
    the drop files the rows."""
    store, bar = sidebar_over(tmp_path, qtbot, {"c1": ("work",), "c2": ("home",)})
    dropped: list[tuple[list[str], str]] = []
    bar.folders.conversations_dropped.connect(lambda ids, folder: dropped.append((ids, folder)))
    try:
        actions = bar.model.supportedDragActions()
        assert actions & Qt.DropAction.CopyAction
        data = bar.model.mimeData([bar.model.index_of("c2")])
        item = bar.folders.item_for("folder", "work")
        assert item is not None
        where = QPointF(bar.folders.visualItemRect(item).center())
        viewport = bar.folders.viewport()
        buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        enter = QDragEnterEvent(where.toPoint(), actions, data, buttons, keys)
        QApplication.sendEvent(viewport, enter)
        move = QDragMoveEvent(where.toPoint(), actions, data, buttons, keys)
        QApplication.sendEvent(viewport, move)
        assert move.isAccepted() and move.dropAction() == Qt.DropAction.CopyAction
        drop = QDropEvent(where, actions, data, buttons, keys)
        QApplication.sendEvent(viewport, drop)
        assert dropped == [(["c2"], "work")]
    finally:
        bar.close()
        store.close()

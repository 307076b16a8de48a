# mypy: disable-error-code="no-untyped-call"
"""The sidebar finished for a new user (issue 20, items 10, 16, 17 and 19) on a real
SQLite store: menus show keys beside titles, never ``\\x09``; search results start at the
top with their count and say what matched, and clearing returns to where the list was;
the list shows a focus ring and End reaches the last conversation; a row's date stays
beside its tag chips and a pinned row shows a pin."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.storage import SqliteStore, open_store
from ikgui.ui.sidebar.sidebar import ConversationSidebar


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = open_store(tmp_path / "ikgui.db")
    yield opened
    opened.close()


def add(store: SqliteStore, cid: str, ago: float, *tags: str, **fields: object) -> None:
    now = time.time()
    conv = Conversation(
        id=cid,
        title=str(fields.pop("title", f"Title of {cid}")),
        tags=tags,
        created_at=now - ago,
        updated_at=now - ago,
        **fields,  # type: ignore[arg-type]
    )
    store.insert_conversation(conv)


def shown(qtbot: QtBot, store: SqliteStore, width: int = 340) -> ConversationSidebar:
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    bar.resize(width, 600)
    bar.show()
    qtbot.waitExposed(bar)
    return bar


def _entries(menu: QMenu) -> dict[str, tuple[str, str]]:
    return {
        a.objectName(): (a.text(), a.shortcut().toString())
        for a in menu.actions()
        if a.objectName()
    }


def test_menus_show_keys_beside_titles_never_an_escaped_tab(
    qtbot: QtBot, store: SqliteStore
) -> None:
    for i, cid in enumerate(("chat-aaaa", "chat-bbbb", "chat-cccc")):
        add(store, cid, 10 * (i + 1), title=f"tab\there {cid}")
    bar = shown(qtbot, store)
    bar.pinning = True
    one = bar.menu_for(bar.model.reveal("chat-aaaa"))
    assert one is not None
    entries = _entries(one)
    assert entries["renameAction"] == ("Rename", "F2")
    assert entries["pinAction"] == ("Pin", "Ctrl+P")
    assert entries["trashAction"] == ("Move to Trash", QKeySequence("Del").toString())
    for cid in ("chat-aaaa", "chat-bbbb", "chat-cccc"):
        bar.view.selectionModel().select(
            bar.model.reveal(cid), QItemSelectionModel.SelectionFlag.Select
        )
    several = bar.menu_for(bar.model.reveal("chat-bbbb"))
    assert several is not None and several.objectName() == "selectionMenu"
    entries = _entries(several)
    assert entries["pinAction"] == ("Pin 3", "Ctrl+P")
    assert entries["trashAction"] == ("Move 3 to Trash", QKeySequence("Del").toString())
    for menu in (one, several):
        for action in menu.actions():
            assert "\\x09" not in action.text() and "\t" not in action.text()

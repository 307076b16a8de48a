"""Empty Trash in the window removes the files only the Trash's messages listed, and
keeps a file another conversation still lists (SPEC §13): the real window on a real
SQLite file."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

from ikgui.ui.window.main_window import MainWindow
from tests.storage.test_store_files import NOTES, PNG, new_conversation, send
from tests.support.fixtures import wire_server, wire_server_session
from tests.ui.conftest import wait_until
from tests.ui.test_trash_view import answer_empty_trash
from tests.ui.test_window import settle, window

__all__ = ["window", "wire_server", "wire_server_session"]


async def test_empty_trash_takes_the_files_no_one_else_lists(
    window: MainWindow, qtbot: QtBot
) -> None:
    store = window.store
    doomed = new_conversation(store, "c-doomed", "Doomed")
    send(store, doomed, "what do these say?", PNG, NOTES)
    kept = new_conversation(store, "c-kept", "Kept")
    send(store, kept, "and this one?", PNG)
    window.sidebar.reload()
    window.commands.trash(doomed)
    await settle(window)
    sidebar = window.sidebar
    qtbot.mouseClick(sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    seen: list[str] = []
    answer_empty_trash("Empty Trash", seen)
    QTimer.singleShot(0, sidebar.trash.bar.empty_button.click)
    await wait_until(lambda: not store.list_conversations(None, trashed=True))
    await settle(window)
    assert store.get_conversation(doomed) is None
    assert store.has_files([PNG.sha256, NOTES.sha256]) == {PNG.sha256}
    assert store.read_files([PNG.sha256])[PNG.sha256] == PNG

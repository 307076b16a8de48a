"""New and Trash in the window (issue 12, item 8): Ctrl+N shows a selected "New
conversation" row and an empty transcript with a hint, the row goes when left empty;
New ▸ agent starts a conversation with that agent; Empty Trash removes the Trash for
good after a confirmation naming the count; Restore takes a list."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_sidebar import top_ids
from tests.ui.test_trash_view import answer_empty_trash
from tests.ui.test_window import reply, settle, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]


def new_row_shown(window: MainWindow) -> bool:
    return not window.chrome.new.row.isHidden()


async def saved_conversation(window: MainWindow, wire_server: WireServer, qtbot: QtBot) -> str:
    wire_server.route("/v1/chat/completions", reply("an answer"))
    await type_and_send(qtbot, window, "a question")
    await settle(window)
    assert window.session.saved
    return window.current_id


async def test_a_fresh_home_shows_the_new_row_not_also_no_conversations_yet(
    window: MainWindow,
) -> None:
    """Issue 20, item 19: the new conversation's row, or "No conversations yet" under it,
    not both; the Trash view still says it is empty."""
    await settle(window)
    bar = window.sidebar
    assert new_row_shown(window) and bar.model.rowCount() == 0
    assert bar.view.placeholder == ""
    bar.trash_toggle.setChecked(True)
    assert not new_row_shown(window) and bar.view.placeholder == "The Trash is empty."
    bar.trash_toggle.setChecked(False)
    assert new_row_shown(window) and bar.view.placeholder == ""


async def test_ctrl_n_shows_a_selected_new_row_that_goes_when_left_empty(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    old = await saved_conversation(window, wire_server, qtbot)
    assert not new_row_shown(window)
    assert window.toolbar_actions["actionNew"].shortcut() == QKeySequence("Ctrl+N")
    window.prompt.setFocus()
    qtbot.keyClick(window.prompt, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    await settle(window)
    row = window.chrome.new.row
    assert not window.session.saved
    assert new_row_shown(window) and row.selected
    assert row.title.text() == "New conversation"
    assert row.detail.text() == "painter · not sent yet"
    assert not window.sidebar.view.selectionModel().hasSelection()  # the row stands for it
    layout = window.sidebar.list_area.layout()
    assert layout is not None
    assert layout.indexOf(row) == layout.indexOf(window.sidebar.view) - 1  # right on top
    hint = window.chrome.new.hint
    assert window.scrollback.item_texts() == []
    assert not hint.isHidden() and hint.text().startswith("New conversation with painter.")

    window.open_conversation(old)  # left without typing anything: the row goes
    await settle(window)
    assert not new_row_shown(window) and hint.isHidden()


async def test_the_new_row_becomes_the_real_row_once_sent(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await saved_conversation(window, wire_server, qtbot)
    window.toolbar_actions["actionNew"].trigger()
    await settle(window)
    assert new_row_shown(window)
    wire_server.route("/v1/chat/completions", reply("fresh answer"))
    await type_and_send(qtbot, window, "fresh start")
    await settle(window)
    assert window.session.saved and not new_row_shown(window)
    assert window.chrome.new.hint.isHidden()
    assert window.sidebar.view.currentIndex().data(Qt.ItemDataRole.DisplayRole) == "fresh start"


async def test_a_typed_new_conversation_keeps_its_row_and_a_click_goes_back(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    old = await saved_conversation(window, wire_server, qtbot)
    window.toolbar_actions["actionNew"].trigger()
    await settle(window)
    qtbot.keyClicks(window.prompt, "half a thought")
    window.open_conversation(old)
    await settle(window)
    row = window.chrome.new.row
    assert new_row_shown(window) and not row.selected
    assert row.detail.text() == "painter · draft"
    qtbot.mouseClick(row, Qt.MouseButton.LeftButton)
    await settle(window)
    assert not window.session.saved and row.selected
    assert window.prompt.toPlainText() == "half a thought"


async def test_new_menu_lists_the_agents_and_starts_one(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await saved_conversation(window, wire_server, qtbot)
    actions = window.toolbar_actions
    button = actions.toolbar.widgetForAction(actions["actionNew"])
    assert isinstance(button, QToolButton)
    assert button.popupMode() == QToolButton.ToolButtonPopupMode.MenuButtonPopup
    menu = actions.new_menu
    menu.aboutToShow.emit()
    items = {a.objectName(): a for a in menu.actions() if a.objectName()}
    assert set(items) == {"newChat", "newWith:painter"}
    assert items["newWith:painter"].text() == "painter"
    items["newChat"].trigger()
    await settle(window)
    assert not window.session.saved and window.session.conversation.agent is None
    assert window.chrome.new.row.detail.text() == "chat · not sent yet"
    items["newWith:painter"].trigger()
    await settle(window)
    assert window.session.conversation.agent == "painter"
    assert window.chrome.new.hint.text().startswith("New conversation with painter.")
    wire_server.route("/v1/chat/completions", reply("drawn"))
    await type_and_send(qtbot, window, "a lighthouse")
    await settle(window)
    stored = window.store.get_conversation(window.current_id)
    assert stored is not None and stored.agent == "painter"


async def test_empty_trash_removes_them_for_good(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, tmp_path: Path
) -> None:
    doomed = []
    for _ in range(2):
        doomed.append(await saved_conversation(window, wire_server, qtbot))
        window.toolbar_actions["actionNew"].trigger()
        await settle(window)
    keep = await saved_conversation(window, wire_server, qtbot)
    for conv_id in doomed:
        window.commands.trash(conv_id)
    await settle(window)
    sidebar = window.sidebar
    qtbot.mouseClick(sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    assert sorted(top_ids(sidebar.model)) == sorted(doomed)
    seen: list[str] = []
    answer_empty_trash("Empty Trash", seen)
    # Clicked from the Qt loop, as a user would: never exec() a dialog inside a coroutine.
    QTimer.singleShot(0, sidebar.trash.bar.empty_button.click)
    await wait_until(lambda: not window.store.list_conversations(None, trashed=True))
    await settle(window)
    assert seen == ["Delete the 2 conversations in the Trash for good? This cannot be undone."]
    for conv_id in doomed:
        assert window.store.get_conversation(conv_id) is None
    assert window.store.list_conversations(None, trashed=True) == []
    assert sidebar.model.rowCount() == 0 and sidebar.trash.bar.label.text() == (
        "The Trash is empty."
    )
    assert window.store.get_conversation(keep) is not None


async def test_restore_from_the_window_takes_a_list(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    first = await saved_conversation(window, wire_server, qtbot)
    window.toolbar_actions["actionNew"].trigger()
    await settle(window)
    second = await saved_conversation(window, wire_server, qtbot)
    window.commands.trash(first)
    window.commands.trash(second)
    await settle(window)
    window.sidebar.restore_requested.emit([first, second])
    await settle(window)
    for conv_id in (first, second):
        conv = window.store.get_conversation(conv_id)
        assert conv is not None and conv.trashed_at is None
    assert window.feedback.text() == "Restored 2 conversations"

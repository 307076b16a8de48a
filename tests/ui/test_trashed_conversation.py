"""A conversation in the Trash is read-only in the window (issue 20, item 4): opened from
the Trash it shows "In the Trash" with Restore, the prompt editor disabled and a send
refused before anything is written; Restore moves it out of the Trash and the editor
takes messages again."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]


async def trashed_one(window: MainWindow, wire_server: WireServer, qtbot: QtBot) -> str:
    wire_server.route("/v1/chat/completions", reply("first reply"))
    await type_and_send(qtbot, window, "first question")
    await settle(window)
    conv_id = window.current_id
    window.toolbar_actions["actionDelete"].trigger()  # Move to the Trash
    await settle(window)
    assert window.current_id != conv_id
    qtbot.mouseClick(window.sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    window.sidebar.conversation_activated.emit(conv_id, None)  # a click on its row in the Trash
    await settle(window)
    assert window.current_id == conv_id
    return conv_id


async def test_a_trashed_conversation_shows_the_strip_and_refuses_a_send(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    conv_id = await trashed_one(window, wire_server, qtbot)
    strip = window.pane.closed_strip
    assert strip.isVisible() and strip.label.text().startswith("In the Trash")
    assert strip.button.text() == "Restore"
    assert not window.prompt.isEnabled() and not window.send_button.isEnabled()
    assert window.prompt.placeholderText().startswith("In the Trash")
    assert not window.toolbar_actions["actionMark"].isEnabled()
    asked = len(wire_server.requests)
    before = window.session.store.events(conv_id)

    window.run_line("sneaked in")  # what Enter would do, were the editor enabled
    await settle(window)
    assert window.feedback.text() == f"Error: Conversation is in the Trash: {conv_id}"
    assert window.session.store.events(conv_id) == before
    assert len(wire_server.requests) == asked
    stored = window.store.get_conversation(conv_id)
    assert stored is not None and stored.trashed_at is not None


async def test_restore_in_the_strip_takes_it_out_of_the_trash_and_enables_the_editor(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    conv_id = await trashed_one(window, wire_server, qtbot)
    strip = window.pane.closed_strip
    qtbot.mouseClick(strip.button, Qt.MouseButton.LeftButton)
    await settle(window)
    stored = window.store.get_conversation(conv_id)
    assert stored is not None and stored.trashed_at is None
    assert strip.isHidden() and window.prompt.isEnabled() and window.send_button.isEnabled()
    assert window.prompt.placeholderText().startswith("Message")

    wire_server.route("/v1/chat/completions", reply("second reply"))
    await type_and_send(qtbot, window, "go on")
    await settle(window)
    assert texts(window)[-2:] == ["go on", "second reply"]

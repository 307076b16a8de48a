"""The action row and the inline editor on the real window, against the real wire server:
the error card's Retry and "Open provider settings", and Edit and resend in place."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QToolButton
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.ui.transcript.action_row import ActionRow
from ikgui.ui.transcript.inline_edit import InlineEditor, bubble_rect
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]


async def card_of(window: MainWindow, event_id: int) -> ActionRow:
    actions = window.scrollback.item_actions
    await wait_until(lambda: event_id in actions.cards and actions.cards[event_id].isVisible())
    return actions.cards[event_id]


async def failed(window: MainWindow, qtbot: QtBot, text: str) -> int:
    await type_and_send(qtbot, window, text)
    await settle(window)
    error = window.session.state.scrollback[-1]
    assert error.kind == Kind.ERROR
    return error.id


async def test_the_error_card_offers_settings_for_a_missing_key_and_retry(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", Reply.error(401, "no API key provided"))
    error_id = await failed(window, qtbot, "hello?")
    card = await card_of(window, error_id)
    buttons = card.buttons()
    assert set(buttons) == {"rowRetry", "rowSettings", "rowCopy"}
    assert buttons["rowSettings"].text() == "Open provider settings"
    frame = window.scrollback.item_frame(error_id)
    assert frame is not None
    assert card.y() >= bubble_rect(window.scrollback, frame).bottom()  # under the card

    qtbot.mouseClick(buttons["rowSettings"], Qt.MouseButton.LeftButton)
    dialog = window.settings_dialog
    assert dialog.isVisible() and dialog.current_page() == "providers"
    dialog.close()

    wire_server.route("/v1/chat/completions", reply("here I am"))
    qtbot.mouseClick(buttons["rowRetry"], Qt.MouseButton.LeftButton)
    await settle(window)
    assert texts(window)[-1] == "here I am"
    assert wire_server.requests[-1].json()["messages"][-1] == {
        "role": "user",
        "content": "hello?",
    }


async def test_a_transient_failure_offers_retry_but_not_settings(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", Reply.error(503, "busy"))
    error_id = await failed(window, qtbot, "are you there?")
    card = await card_of(window, error_id)
    assert set(card.buttons()) == {"rowRetry", "rowCopy"}


async def open_editor(window: MainWindow, qtbot: QtBot, event_id: int) -> InlineEditor:
    view = window.scrollback
    frame = view.item_frame(event_id)
    assert frame is not None
    view.scroll_to_event(event_id)
    box = bubble_rect(view, frame)
    point = box.topLeft() + QPointF(20, 10)
    move = QMouseEvent(
        QEvent.Type.MouseMove,
        point,
        view.viewport().mapToGlobal(point),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), move)
    row = view.item_actions.row
    await wait_until(lambda: row.isVisible() and row.event_id == event_id)
    edit = row.buttons()["rowEdit"]
    assert isinstance(edit, QToolButton)
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton)
    editor = view.item_actions.edits.editor
    assert editor is not None and editor.isVisible()
    return editor


async def sent_long(window: MainWindow, wire_server: WireServer) -> tuple[str, int, int]:
    text = "\n".join(f"line {i} of a message long enough to scroll" for i in range(40))
    wire_server.route("/v1/chat/completions", reply("noted"))
    window.prompt.setPlainText(text)
    window.prompt.submit()
    await settle(window)
    user, answer = window.session.state.context
    return text, user.id, answer.id


async def test_edit_in_place_shows_the_full_text_and_escape_records_nothing(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    view = window.scrollback
    long_text, user_id, answer_id = await sent_long(window, wire_server)
    parent = window.current_id
    before = len(window.store.events(parent))

    editor = await open_editor(window, qtbot, user_id)
    assert editor.text() == long_text  # the full, multi-line text
    frame, following = view.item_frame(user_id), view.item_frame(answer_id)
    assert frame is not None and following is not None
    await wait_until(lambda: editor.geometry().top() == round(bubble_rect(view, frame).top()))
    assert editor.geometry().bottom() < bubble_rect(view, following).top()  # room kept
    assert editor.text_edit.verticalScrollBar().maximum() == 0  # every line in view
    old_top, bar = editor.y(), view.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.value() - 30 if bar.value() >= 30 else bar.value() + 30)
    await wait_until(lambda: editor.y() != old_top)  # it follows the scrolling
    assert editor.y() == round(bubble_rect(view, frame).top())

    qtbot.keyClick(editor.text_edit, Qt.Key.Key_Escape)
    assert view.item_actions.edits.editor is None
    await settle(window)
    assert window.current_id == parent
    assert len(window.store.events(parent)) == before  # nothing recorded


async def test_send_in_new_branch_forks_and_sends_the_edited_text(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    long_text, user_id, _ = await sent_long(window, wire_server)
    parent = window.current_id
    editor = await open_editor(window, qtbot, user_id)
    editor.text_edit.setPlainText("a shorter question\nin two lines")
    wire_server.route("/v1/chat/completions", reply("shorter answer"))
    qtbot.mouseClick(editor.send_button, Qt.MouseButton.LeftButton)
    await settle(window)
    assert window.session.conversation.parent == parent
    assert [e.content for e in window.session.state.context] == [
        "a shorter question\nin two lines",
        "shorter answer",
    ]
    assert [e.content for e in window.store.events(parent) if e.kind == Kind.USER] == [long_text]


async def test_ctrl_enter_resends_a_stored_slash_message_as_text(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("a word"))
    await type_and_send(qtbot, window, "//help")  # stored as the text "/help"
    await settle(window)
    user = window.session.state.context[0]
    editor = await open_editor(window, qtbot, user.id)
    assert editor.text() == "/help"
    wire_server.route("/v1/chat/completions", reply("still a word"))
    qtbot.keyClick(editor.text_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    await settle(window)
    assert texts(window)[-1] == "still a word"
    assert wire_server.requests[-1].json()["messages"][-1] == {"role": "user", "content": "/help"}
    assert not any(t.startswith("Available commands") for t in texts(window))

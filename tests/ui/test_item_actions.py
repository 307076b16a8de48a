"""Actions on every message (issue 10, item 2): the row under the message shown on hover
and on keyboard focus, and the error card's own buttons."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QApplication, QToolButton
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Event
from ikgui.ui.transcript.action_row import ActionRow, actions_for
from ikgui.ui.transcript.inline_edit import bubble_rect
from ikgui.ui.transcript.scrollback import ScrollbackView

C = "chat-actions"


def ev(id: int, kind: str, content: str = "", data: dict[str, Any] | None = None) -> Event:
    return Event(id, C, kind, content, data or {})


@pytest.fixture
def view(qtbot: QtBot) -> ScrollbackView:
    widget = ScrollbackView()
    qtbot.addWidget(widget)
    widget.resize(800, 600)
    widget.show()
    widget.show_events(
        [
            ev(1, "user", "Make it *shorter*\n\nplease"),
            ev(2, "assistant", "A **short** answer\n\n- one\n- two", {"model": "m1"}),
            ev(3, "user", "And now?"),
            ev(4, "assistant", "Still growing", {"streaming": True}),
        ]
    )
    return widget


def hover(qtbot: QtBot, view: ScrollbackView, event_id: int) -> QPoint:
    """Move the mouse over the middle of an item's box; returns the point."""
    frame = view.item_frame(event_id)
    assert frame is not None
    point = bubble_rect(view, frame).center()
    move = QMouseEvent(
        QEvent.Type.MouseMove,
        point,
        view.viewport().mapToGlobal(point),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), move)
    return point.toPoint()


def row_buttons(view: ScrollbackView) -> dict[str, QToolButton]:
    row = view.item_actions.row
    return {name: b for name, b in row.buttons().items() if not b.isHidden()}


def shown_for(qtbot: QtBot, view: ScrollbackView, event_id: int) -> ActionRow:
    row = view.item_actions.row
    qtbot.waitUntil(lambda: row.isVisible() and row.event_id == event_id, timeout=2000)
    return row


def test_hovering_a_message_shows_its_row_under_it(view: ScrollbackView, qtbot: QtBot) -> None:
    view.clearFocus()
    row = view.item_actions.row
    qtbot.waitUntil(lambda: not row.isVisible())  # nothing hovered, nothing focused

    hover(qtbot, view, 2)
    shown_for(qtbot, view, 2)
    assert set(row_buttons(view)) == {"rowCopy", "rowRetry", "rowFork"}
    frame = view.item_frame(2)
    assert frame is not None
    box = bubble_rect(view, frame)
    assert row.y() >= box.bottom() and row.x() == round(box.left())  # under, not over
    following = view.item_frame(3)
    assert following is not None
    assert row.geometry().bottom() < bubble_rect(view, following).top()  # room kept for it
    tips = {b.objectName(): b.toolTip() for b in row_buttons(view).values()}
    assert tips["rowFork"].startswith("Fork from here")

    hover(qtbot, view, 1)
    shown_for(qtbot, view, 1)
    assert set(row_buttons(view)) == {"rowCopy", "rowEdit", "rowFork"}
    assert row_buttons(view)["rowEdit"].accessibleName() == "Edit and resend"
    user = view.item_frame(1)
    assert user is not None
    assert row.geometry().right() <= round(bubble_rect(view, user).right())  # your side

    hover(qtbot, view, 4)  # a reply still arriving: only Copy
    shown_for(qtbot, view, 4)
    assert set(row_buttons(view)) == {"rowCopy"}

    QApplication.sendEvent(view.viewport(), QEvent(QEvent.Type.Leave))
    qtbot.waitUntil(lambda: not row.isVisible(), timeout=2000)


def test_the_row_s_buttons_copy_the_markdown_retry_and_fork(
    view: ScrollbackView, qtbot: QtBot
) -> None:
    forks: list[int] = []
    retries: list[int] = []
    view.fork_requested.connect(forks.append)
    view.retry_requested.connect(retries.append)
    hover(qtbot, view, 2)
    shown_for(qtbot, view, 2)
    qtbot.mouseClick(row_buttons(view)["rowCopy"], Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "A **short** answer\n\n- one\n- two"
    qtbot.mouseClick(row_buttons(view)["rowRetry"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(row_buttons(view)["rowFork"], Qt.MouseButton.LeftButton)
    assert retries == [2] and forks == [2]

    hover(qtbot, view, 1)
    shown_for(qtbot, view, 1)
    qtbot.mouseClick(row_buttons(view)["rowCopy"], Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "Make it *shorter*\n\nplease"
    qtbot.mouseClick(row_buttons(view)["rowEdit"], Qt.MouseButton.LeftButton)
    editor = view.item_actions.edits.editor
    assert editor is not None and editor.text() == "Make it *shorter*\n\nplease"


def test_keyboard_focus_shows_the_row_and_tab_reaches_its_buttons(
    view: ScrollbackView, qtbot: QtBot
) -> None:
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=2000)
    view.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    row = shown_for(qtbot, view, 1)  # the message at the text cursor (the start)
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())
    # The text cursor on a message (a click, a link reached by Tab) picks that one.
    cursor = view.textCursor()
    frame = view.item_frame(3)
    assert frame is not None
    cursor.setPosition(frame.lastPosition())
    view.setTextCursor(cursor)
    shown_for(qtbot, view, 3)

    qtbot.keyClick(view, Qt.Key.Key_Tab)
    focus = QApplication.focusWidget()
    assert isinstance(focus, QToolButton) and row.isAncestorOf(focus)
    assert focus.objectName() == "rowCopy"
    qtbot.keyClick(focus, Qt.Key.Key_Tab)
    assert QApplication.focusWidget().objectName() == "rowEdit"  # type: ignore[union-attr]
    shown_for(qtbot, view, 3)  # the row stays while its buttons have the focus
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    editor = view.item_actions.edits.editor
    assert editor is not None and editor.text() == "And now?" and editor.text_edit.hasFocus()


def test_which_actions_each_kind_offers() -> None:
    def names(event: Event) -> list[str]:
        return [a.object_name for a in actions_for(event)]

    assert names(ev(1, "user", "hi")) == ["rowCopy", "rowEdit", "rowFork"]
    assert names(ev(2, "assistant", "yo")) == ["rowCopy", "rowRetry", "rowFork"]
    assert names(ev(3, "assistant", "y", {"streaming": True})) == ["rowCopy"]
    for category in ("config", "auth", "not_found", "connect"):
        error = ev(4, "error", "no", {"category": category})
        assert names(error) == ["rowRetry", "rowSettings", "rowCopy"], category
    for category in ("timeout", "overloaded", "rate_limit", "cut", "stream_error", None):
        error = ev(5, "error", "later", {"category": category})
        assert names(error) == ["rowRetry", "rowCopy"], category
    assert names(ev(6, "mark", "", {"label": "x"})) == []
    assert names(ev(7, "command", "Model set", {"input": "/model m"})) == []

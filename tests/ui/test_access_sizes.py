"""Everyone can use it (issue 13, items 2–4): human accessible names, announcements of a
finished reply and an error, the window at 800×600, "no price set" and a labelled model
box on first run."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from ikgui.domain.state.catalog import UNAVAILABLE
from ikgui.ui.window import announce
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer
from tests.ui.conftest import laid_out, wait_until
from tests.ui.test_window import closed, opened, reply, settle, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]

INTERACTIVE = (
    QAbstractButton,
    QLineEdit,
    QComboBox,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
)


def qt_internal(widget: QWidget) -> bool:
    """Qt's own parts of a widget (a line edit's clear button, a combo box's popup list, a
    tree's hidden header): named by Qt from the widget they belong to."""
    parent = widget.parentWidget()
    return (
        widget.objectName().startswith("qt_")
        or isinstance(parent, QLineEdit)
        or type(parent).__name__ == "QComboBoxPrivateContainer"
        or (widget.objectName() == "" and not isinstance(widget, QAbstractButton))
    )


def spoken_name(widget: QWidget) -> str:
    """What a screen reader says: the accessible name set, else what Qt derives."""
    if widget.accessibleName():
        return widget.accessibleName()
    face = QAccessible.queryAccessibleInterface(widget)
    return face.text(QAccessible.Text.Name) if face is not None else ""


def unnamed(root: QWidget) -> list[str]:
    bad = []
    for widget in root.findChildren(QWidget):
        interactive = isinstance(widget, INTERACTIVE) or (
            widget.focusPolicy() != Qt.FocusPolicy.NoFocus and not isinstance(widget, QLabel)
        )
        if not interactive or qt_internal(widget):
            continue
        name = spoken_name(widget)
        if not name.strip() or name == widget.objectName() or name == "✕":
            bad.append(f"{type(widget).__name__} {widget.objectName()!r}: {name!r}")
    return bad


async def test_every_interactive_widget_has_a_human_accessible_name(
    window: MainWindow, qtbot: QtBot
) -> None:
    assert unnamed(window) == []
    spoken = {
        window.prompt: "Message",
        window.send_button: "Send",
        window.scrollback: "Transcript",
        window.sidebar.findChild(QWidget, "conversationList"): "Conversations",
        window.toolbar_actions.model_selector: "Model",
    }
    for widget, name in spoken.items():
        assert widget.accessibleName() == name
    new = window.toolbar_actions.toolbar.widgetForAction(window.toolbar_actions["actionNew"])
    assert new.accessibleName() == "New conversation"
    assert new.accessibleDescription() == "Start a new conversation (/new)"  # the tooltip's words
    window.open_settings()
    dialog = window.settings_dialog
    try:
        assert unnamed(dialog) == []
    finally:
        dialog.close()


def record_announcements(monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    said: list[str] = []
    update = QAccessible.updateAccessibility

    def recording(event):  # type: ignore[no-untyped-def]
        if isinstance(event, announce.Announcement):
            said.append(event.message())
        update(event)

    monkeypatch.setattr(announce.QAccessible, "updateAccessibility", recording)
    return said


async def test_a_finished_reply_and_an_error_are_announced(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    said = record_announcements(monkeypatch)
    wire_server.route("/v1/chat/completions", reply("A cat ", "on a mat."))
    await type_and_send(qtbot, window, "draw a cat")
    await settle(window)
    assert said == ["Reply finished: A cat on a mat."]
    assert window.status_stream.accessibleDescription() == said[-1]  # the live text
    assert window.status_usage.text() == "11 in / 7 out · no price set"
    view = window.scrollback
    user, answer = window.session.state.scrollback[-2:]
    for event, description in (
        (answer, "Assistant's reply: A cat on a mat."),
        (user, "Your message: draw a cat"),
    ):  # the item the cursor is in: its role and text
        cursor = view.textCursor()
        cursor.setPosition(view.item_frame(event.id).firstPosition() + 1)
        view.setTextCursor(cursor)
        assert view.accessibleDescription() == description
    wire_server.route("/v1/chat/completions", Reply.error(500, "boom"))
    await type_and_send(qtbot, window, "again")
    await settle(window)
    assert len(said) == 2 and said[-1].startswith("Error: ")
    assert "internal error" in said[-1] and window.status_stream.accessibleDescription() == said[-1]


def inside(widget: QWidget, window: QWidget) -> bool:
    top_left = widget.mapTo(window, widget.rect().topLeft())
    return window.rect().contains(QRect(top_left, widget.size()))


def clipped(window: MainWindow) -> list[str]:
    """Visible widgets that reach outside the window, and toolbar actions hidden in the
    overflow."""
    bad = [
        f"{type(w).__name__} {w.objectName()!r}"
        for w in window.findChildren(QWidget)
        if w.isVisible() and not w.isWindow() and w.window() is window and not inside(w, window)
    ]
    toolbar = window.toolbar_actions.toolbar
    for action in toolbar.actions():
        button = toolbar.widgetForAction(action)
        if action.isVisible() and button is not None and not button.isVisible():
            bad.append(f"hidden in the overflow: {action.objectName() or action.text()}")
    return bad


async def resized(window: MainWindow, width: int, height: int) -> None:
    window.resize(width, height)
    await wait_until(lambda: window.width() == width)
    await laid_out()  # the layouts below settle in posted events


async def test_at_800_by_600_nothing_is_clipped_and_the_transcript_keeps_room(
    window: MainWindow, qtbot: QtBot
) -> None:
    await resized(window, 800, 600)
    actions = window.toolbar_actions
    assert actions.toolbar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly
    assert actions.model_selector.isVisible() and inside(actions.model_selector, window)
    assert clipped(window) == []
    assert window.centre_stack.width() >= 480
    toggle = window.chrome.responsive.sidebar_toggle
    assert toggle.isVisible() and not window.sidebar.isVisible()
    toggle.trigger()  # the sidebar collapsed to a toggle: it comes back on demand
    assert window.sidebar.isVisible()
    toggle.trigger()
    window.prompt_panel.open()  # the working prompt opened: a slim column
    window.chrome.refresh()
    assert not window.working.collapsed and window.centre_stack.width() >= 480
    await resized(window, 1366, 768)
    assert actions.toolbar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonTextBesideIcon
    assert window.sidebar.isVisible() and not toggle.isVisible()
    assert clipped(window) == []


async def test_first_run_wraps_the_welcome_and_labels_the_model_box(
    tmp_path: Path, qtbot: QtBot
) -> None:
    win = await opened(tmp_path / "home", check_timeout=0.5)
    try:
        await resized(win, 800, 600)
        assert win.centre_stack.currentWidget() is win.welcome
        assert clipped(win) == []
        for label in win.welcome.findChildren(QLabel):
            if label.isVisible():
                assert inside(label, win.welcome), label.text()
                assert label.width() >= label.minimumSizeHint().width()
        selector = win.toolbar_actions.model_selector
        # First run, no server: the box names the provider, says no model is chosen and,
        # opened, that the list is unavailable (issue 20: never a blank or disabled box)
        assert selector.choices() == [] and selector.headings() == ["ollama"]
        assert selector.notes("ollama") == [UNAVAILABLE]
        assert selector.shown_text() == "ollama · no model" and selector.isEnabled()
        assert win.status_model.text() == selector.shown_text()  # the status bar agrees
        label = win.toolbar_actions.toolbar.findChild(QLabel, "modelLabel")
        assert label is not None and label.buddy() is selector
        await resized(win, 1366, 768)  # roomy: the box has a visible label too
        assert label.isVisible() and selector.isVisible() and clipped(win) == []
    finally:
        await closed(win)

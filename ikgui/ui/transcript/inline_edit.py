"""Edit and resend, in place: the message turns into a multi-line editor with its full
text, "Send in new branch" (Ctrl+Enter) and Cancel (Escape).

The editor is a child of the transcript's viewport laid over the message's frame, whose
bottom margin grows while it is open so the document keeps room for it; it follows
scrolling, resizing and the document's growth (:mod:`ikgui.ui.transcript.item_actions`
places it). Nothing stored changes: sending asks for the edited text in a new branch
forked before the message (``edit_resend_requested``), as text, never parsed as a command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextFrame
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ikgui.ui.icons import set_icon
from ikgui.ui.transcript.items import ACTION_ROOM

if TYPE_CHECKING:
    from ikgui.ui.transcript.scrollback import ScrollbackView

#: The editor's text area grows with the text up to this share of the view's height.
_MOST = 0.6
_FEWEST_LINES = 3


def bubble_rect(view: QTextEdit, frame: QTextFrame) -> QRectF:
    """A frame's box without its margins, in viewport coordinates."""
    rect = view.document().documentLayout().frameBoundingRect(frame)
    fmt = frame.frameFormat()
    rect.adjust(fmt.leftMargin(), fmt.topMargin(), -fmt.rightMargin(), -fmt.bottomMargin())
    return rect.translated(-view.horizontalScrollBar().value(), -view.verticalScrollBar().value())


def _sends(event: QKeyEvent) -> bool:
    ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
    return bool(ctrl) and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class InlineEditor(QFrame):
    """The editor over one message: ``send_requested`` / ``cancel_requested``."""

    send_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, parent: QWidget, text: str) -> None:
        super().__init__(parent)
        self.setObjectName("inlineEditor")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.text_edit = QPlainTextEdit(self)
        self.text_edit.setObjectName("inlineEditText")
        self.text_edit.setAccessibleName("Edit message")
        self.text_edit.setPlainText(text)
        self.text_edit.setTabChangesFocus(True)
        self.text_edit.installEventFilter(self)
        self.send_button = QPushButton("Send in new branch", self)
        self.send_button.setObjectName("inlineEditSend")
        self.send_button.setToolTip("Send the edited text in a new branch (Ctrl+Enter)")
        self.send_button.setDefault(True)
        set_icon(self.send_button, "fork")
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("inlineEditCancel")
        self.cancel_button.setToolTip("Leave the message as it is (Escape)")
        hint = QLabel("Ctrl+Enter sends · Escape cancels", self)
        hint.setEnabled(False)
        buttons = QHBoxLayout()
        buttons.addWidget(hint)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.send_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        layout.addWidget(self.text_edit, 1)
        layout.addLayout(buttons)
        self.send_button.clicked.connect(self.send_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.text_edit.textChanged.connect(self._enable)
        self._enable()

    def text(self) -> str:
        return self.text_edit.toPlainText()

    def height_for(self, width: int, most: int) -> int:
        """The editor's height at ``width``: the whole text, within ``most`` pixels."""
        metrics = self.text_edit.fontMetrics()
        inner = max(40, width - 40)
        flags = Qt.TextFlag.TextWordWrap | Qt.TextFlag.TextExpandTabs
        text = self.text() + ("x" if self.text().endswith("\n") else "")
        wanted = metrics.boundingRect(QRect(0, 0, inner, 10**7), flags, text or "x").height()
        wanted = max(wanted, metrics.lineSpacing() * _FEWEST_LINES) + 16  # its margins
        chrome = self.send_button.sizeHint().height() + 6 * 3 + 16
        return min(wanted + chrome, max(most, 120))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.text_edit and isinstance(event, QKeyEvent):
            if event.type() == QEvent.Type.ShortcutOverride and (
                _sends(event) or event.key() == Qt.Key.Key_Escape
            ):
                event.accept()  # ours, not a window shortcut's
                return True
            if event.type() == QEvent.Type.KeyPress and _sends(event):
                self.send_requested.emit()
                return True
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.cancel_requested.emit()
        elif _sends(event):
            self.send_requested.emit()
        else:
            super().keyPressEvent(event)

    def _enable(self) -> None:
        self.send_button.setEnabled(bool(self.text().strip()))


class InlineEdits:
    """The one inline editor of a transcript (``editor``: ``None`` when closed)."""

    def __init__(self, view: ScrollbackView) -> None:
        self.view = view
        self.editor: InlineEditor | None = None
        self.editing_id: int | None = None

    def start(self, event_id: int) -> InlineEditor | None:
        """Open the editor over the message ``event_id`` (closing any other)."""
        item = self.view._by_id.get(event_id)
        if item is None:
            return None
        self.close()
        editor = InlineEditor(self.view.viewport(), item.event.content)
        editor.send_requested.connect(self._send)
        editor.cancel_requested.connect(self.cancel)
        self.editor, self.editing_id = editor, event_id
        self.place()
        editor.show()
        editor.text_edit.setFocus()
        editor.text_edit.moveCursor(QTextCursor.MoveOperation.End)
        return editor

    def cancel(self) -> None:
        """Close the editor; nothing is recorded."""
        had_focus = self.editor is not None and self.editor.isAncestorOf(
            self.view.window().focusWidget()
        )
        self.close()
        if had_focus:
            self.view.setFocus()

    def close(self) -> None:
        editor, event_id = self.editor, self.editing_id
        self.editor, self.editing_id = None, None
        if editor is None:
            return
        editor.hide()
        editor.deleteLater()
        item = self.view._by_id.get(event_id) if event_id is not None else None
        if item is not None:
            self._reserve(item.frame, ACTION_ROOM)

    def place(self) -> None:
        """Lay the editor over its message and keep the room it needs in the document."""
        editor, event_id = self.editor, self.editing_id
        if editor is None or event_id is None:
            return
        view = self.view
        item = view._by_id.get(event_id)
        if item is None:  # paged out: it comes back with its page; gone: close
            if view._held_index(event_id) is None:
                self.close()
            else:
                editor.hide()
            return
        box = bubble_rect(view, item.frame)
        fmt = item.frame.frameFormat()
        content = box.height()
        most = round(view.viewport().height() * _MOST)
        height = max(editor.height_for(round(box.width()), most), round(content))
        self._reserve(item.frame, max(ACTION_ROOM, height + 8 - round(content)))
        if fmt.bottomMargin() != item.frame.frameFormat().bottomMargin():
            box = bubble_rect(view, item.frame)
        editor.setGeometry(round(box.left()), round(box.top()), round(box.width()), height)
        editor.show()
        editor.raise_()

    def _reserve(self, frame: QTextFrame, margin: float) -> None:
        fmt = frame.frameFormat()
        if fmt.bottomMargin() != margin:
            fmt.setBottomMargin(margin)
            frame.setFrameFormat(fmt)

    def _send(self) -> None:
        editor, event_id = self.editor, self.editing_id
        if editor is None or event_id is None or not editor.text().strip():
            return
        text = editor.text()
        self.cancel()
        self.view.edit_resend_requested.emit(event_id, text)

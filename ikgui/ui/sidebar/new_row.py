"""The "New conversation" row at the top of the sidebar (issue 12, item 8).

A new conversation is stored with its first message, so until then it has no row in
the list; this row stands in for it: shown selected while it is on screen, kept (not
selected) while its draft holds typed text, gone once it is sent (its real row takes
over) or left empty. A click goes back to it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from ikgui.ui.plain import line, make_plain

TITLE = "New conversation"


def detail_text(agent: str | None, typed: bool) -> str:
    return line(" · ".join([agent or "chat", "draft" if typed else "not sent yet"]))


class NewConversationRow(QFrame):
    clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("newConversationRow")
        self.setAccessibleName(TITLE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setProperty("selected", False)
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 6, 10, 6)
        column.setSpacing(1)
        self.title = make_plain(QLabel(TITLE, self))
        self.title.setObjectName("newConversationTitle")
        self.detail = make_plain(QLabel(self))  # the agent's name is config text
        self.detail.setObjectName("newConversationDetail")
        column.addWidget(self.title)
        column.addWidget(self.detail)
        self.hide()

    @property
    def selected(self) -> bool:
        return bool(self.property("selected"))

    def show_state(self, visible: bool, selected: bool, agent: str | None, typed: bool) -> None:
        self.setVisible(visible)
        self.detail.setText(detail_text(agent, typed))
        self.setToolTip("The new conversation: it is saved when you send its first message")
        if selected != self.selected:
            self.setProperty("selected", selected)
            self.style().unpolish(self)
            self.style().polish(self)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            self.clicked.emit()
        super().mouseReleaseEvent(event)

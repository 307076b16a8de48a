"""The start-up banner: what to start or configure (the one place for that)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QWidget,
)

from ikgui.ui.plain import block


class Banner(QFrame):
    """A dismissable line above the conversation: what to start or configure."""

    settings_requested = Signal()
    #: The user closed it.
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setAccessibleName("Notice")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        self.label = QLabel()
        self.label.setObjectName("bannerText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self.button = QPushButton("Settings…")
        self.button.setObjectName("bannerSettingsButton")
        self.button.clicked.connect(self.settings_requested)
        layout.addWidget(self.button)
        close = QToolButton()
        close.setObjectName("bannerClose")
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.setAccessibleName("Dismiss the notice")
        close.clicked.connect(self.hide)
        close.clicked.connect(self.dismissed)
        layout.addWidget(close)
        self.hide()

    def show_message(self, text: str) -> None:
        self.label.setText(block(text))
        self.show()

    def text(self) -> str:
        return self.label.text() if self.isVisible() else ""

"""Small pieces of the window: the start-up banner and the "show context" dialog."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.reading import format_context
from ikgui.ui.plain import block, line, plain_label


class Banner(QFrame):
    """A dismissable line above the conversation: what to start or configure."""

    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setAccessibleName("banner")
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
        close.clicked.connect(self.hide)
        layout.addWidget(close)
        self.hide()

    def show_message(self, text: str) -> None:
        self.label.setText(block(text))
        self.show()

    def text(self) -> str:
        return self.label.text() if self.isVisible() else ""


class ContextDialog(QDialog):
    """Exactly what the model receives next (the same as ``ikgui conv context``)."""

    def __init__(
        self,
        conv_id: str,
        provider: str,
        model: str | None,
        messages: list[dict[str, Any]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("contextDialog")
        self.setWindowTitle(f"Context of {line(conv_id)}")
        self.resize(720, 560)
        self.document = {"id": conv_id, "provider": provider, "model": model, "messages": messages}
        layout = QVBoxLayout(self)
        layout.addWidget(
            plain_label(
                f"What {line(provider)} / {line(model or 'its default model')} receives next, "
                "before your new message: the system prompt, the history with notices, and "
                "the current working prompt last."
            )
        )
        self.view = QPlainTextEdit(self)
        self.view.setObjectName("contextView")
        self.view.setReadOnly(True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setPlainText(block(format_context(messages)))
        layout.addWidget(self.view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy as JSON", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(self.copy_json)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons)

    def copy_json(self) -> None:
        QGuiApplication.clipboard().setText(json.dumps(self.document, indent=2, ensure_ascii=False))

"""The working-prompt panel: the prompt the assistant drafted, editable by the user.

Edits are staged in the session as they are typed (an "edited" indicator shows) and
committed — one ``prompt_edit`` notice with the final text — when the editor loses
focus, on Ctrl+S, or with the next send.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class _Editor(QPlainTextEdit):
    focus_left = Signal()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.focus_left.emit()


class WorkingPromptPanel(QWidget):
    edited = Signal(str)  # the text as typed (staged, not yet committed)
    commit_requested = Signal()
    show_context_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workingPromptPanel")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        head = QHBoxLayout()
        title = QLabel("<b>Working prompt</b>")
        self.indicator = QLabel("edited")
        self.indicator.setObjectName("workingPromptEdited")
        self.indicator.setToolTip("Not yet recorded: leave the editor, press Ctrl+S, or send")
        self.indicator.setVisible(False)
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.indicator)
        layout.addLayout(head)
        self.editor = _Editor(self)
        self.editor.setObjectName("workingPromptEditor")
        self.editor.setAccessibleName("workingPromptEditor")
        self.editor.setPlaceholderText(
            "When the assistant drafts a prompt, it appears here. Edit it freely: "
            "the assistant is told what you changed."
        )
        layout.addWidget(self.editor, 1)
        self.context_button = QPushButton("Show context")
        self.context_button.setObjectName("showContextButton")
        self.context_button.setToolTip("Exactly what the model will receive next")
        layout.addWidget(self.context_button, 0, Qt.AlignmentFlag.AlignRight)
        self._loading = False
        self.editor.textChanged.connect(self._changed)
        self.editor.focus_left.connect(self.commit_requested)
        save = QShortcut(QKeySequence.StandardKey.Save, self.editor)
        save.setContext(Qt.ShortcutContext.WidgetShortcut)
        save.activated.connect(self.commit_requested)
        self.context_button.clicked.connect(self.show_context_requested)

    def _changed(self) -> None:
        if not self._loading:
            self.edited.emit(self.editor.toPlainText())

    def text(self) -> str:
        return self.editor.toPlainText()

    def show_prompt(self, text: str) -> None:
        """Show the recorded working prompt (does not count as an edit)."""
        if self.editor.toPlainText() == text:
            return
        self._loading = True
        try:
            self.editor.setPlainText(text)
        finally:
            self._loading = False

    def set_edited(self, edited: bool) -> None:
        self.indicator.setVisible(edited)

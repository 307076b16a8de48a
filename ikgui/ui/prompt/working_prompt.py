"""The working-prompt panel: the prompt the assistant drafted, editable by the user.

Typing stages an edit; nothing is told to the model until the user saves it (Save /
Ctrl+S) or sends the next message. While the text differs from the recorded prompt the
panel says "Unsaved edit" and offers Save and Revert (Escape); leaving the editor keeps
the edit as a draft. The panel collapses to a slim toggle when it has nothing to do
(:mod:`ikgui.ui.prompt.panel_controller` decides when).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.ui.plain import make_plain
from ikgui.ui.transcript.reading_column import body_font

#: The width of the collapsed panel: just its toggle.
COLLAPSED_WIDTH = 30
TOGGLE_SHORTCUT = "Ctrl+Shift+P"
COPY_LABEL = "Copy"
#: What the Copy button says for a moment after a click.
COPIED_LABEL = "Copied ✓"


class _Editor(QPlainTextEdit):
    """Tab and Shift+Tab move focus on (no keyboard trap); Ctrl+Tab inserts a tab;
    Escape asks to revert an unsaved edit."""

    escape_pressed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabChangesFocus(True)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
        if event.key() == Qt.Key.Key_Tab and ctrl and not self.isReadOnly():
            self.insertPlainText("\t")
            return
        if event.key() == Qt.Key.Key_Escape:
            self.escape_pressed.emit()
            return
        super().keyPressEvent(event)

    def event(self, event: QEvent) -> bool:
        # Ctrl+Tab would otherwise never reach keyPressEvent (Qt uses it for focus).
        if (
            isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() == Qt.Key.Key_Tab
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self.keyPressEvent(event)
            return True
        return super().event(event)


class WorkingPromptPanel(QWidget):
    edited = Signal(str)  # the text as typed (staged, not yet recorded)
    save_requested = Signal()
    revert_requested = Signal()
    show_context_requested = Signal()
    history_requested = Signal()
    toggle_requested = Signal()  # collapse / expand
    #: "Restore unsaved edit": the edit a Clear ended, back in the editor.
    restore_edit_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workingPromptPanel")
        self.setAccessibleName("Working prompt")
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        self.toggle = QToolButton(self)
        self.toggle.setObjectName("workingPromptToggle")
        self.toggle.setAutoRaise(True)
        self.toggle.clicked.connect(self.toggle_requested)
        self.toggle.setFixedWidth(COLLAPSED_WIDTH - 4)
        self.toggle.setText("◂")
        self.toggle.setToolTip(f"Show the working prompt  ({TOGGLE_SHORTCUT})")
        self.toggle.setAccessibleName("Show the working prompt")
        self.toggle.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        outer.addWidget(self.toggle)
        self.body = QWidget(self)
        outer.addWidget(self.body, 1)
        self._build_body()
        self._collapsed = False
        self._loading = False
        self.set_collapsed(False)

    def _build_body(self) -> None:
        layout = QVBoxLayout(self.body)
        layout.setContentsMargins(4, 8, 8, 8)
        head = QHBoxLayout()
        title = QLabel("<b>Working prompt</b>")
        self.indicator = make_plain(QLabel("● Unsaved edit · not told to the assistant yet"))
        self.indicator.setObjectName("workingPromptEdited")
        self.indicator.setToolTip(
            "The model has not been told yet: Save (Ctrl+S) or send your next message"
        )
        self.indicator.setVisible(False)
        self.history_button = QToolButton(self.body)
        self.history_button.setObjectName("promptHistoryButton")
        self.history_button.setText("History")
        self.history_button.setToolTip("Every version of this prompt: view, copy or restore")
        self.history_button.setAccessibleName("Prompt history")
        self.history_button.setAutoRaise(True)
        self.history_button.clicked.connect(self.history_requested)
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.history_button)
        self.hide_button = QToolButton(self.body)
        self.hide_button.setObjectName("workingPromptHide")
        self.hide_button.setText("▸")
        self.hide_button.setAutoRaise(True)
        self.hide_button.setToolTip(f"Hide the working prompt  ({TOGGLE_SHORTCUT})")
        self.hide_button.setAccessibleName("Hide the working prompt")
        self.hide_button.clicked.connect(self.toggle_requested)
        head.addWidget(self.hide_button)
        layout.addLayout(head)
        self.indicator.setWordWrap(True)
        layout.addWidget(self.indicator)
        self.editor = _Editor(self.body)
        self.editor.setObjectName("workingPromptEditor")
        self.editor.setAccessibleName("Working prompt")
        self.editor.setAccessibleDescription(
            "Edit the prompt, then Save (Ctrl+S) to tell the assistant; Escape reverts"
        )
        self.editor.setPlaceholderText(
            "When the assistant drafts a prompt, it appears here. Edit it, then Save: "
            "the assistant is told what you changed."
        )
        layout.addWidget(self.editor, 1)
        layout.addWidget(self._build_buttons())
        self.editor.textChanged.connect(self._changed)
        self.editor.escape_pressed.connect(self._escape)
        save = QShortcut(QKeySequence.StandardKey.Save, self.editor)
        save.setContext(Qt.ShortcutContext.WidgetShortcut)
        save.activated.connect(self.save_requested)

    def _build_buttons(self) -> QWidget:
        """Save and Revert (while there is an unsaved edit), then Show context."""
        box = QWidget(self.body)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        self.unsaved_row = QWidget(box)
        row = QHBoxLayout(self.unsaved_row)
        row.setContentsMargins(0, 0, 0, 0)
        self.save_button = QPushButton("Save", self.unsaved_row)
        self.save_button.setObjectName("workingPromptSave")
        self.save_button.setAccessibleName("Save the prompt edit")
        self.save_button.setToolTip("Record the edit and tell the assistant  (Ctrl+S)")
        self.revert_button = QPushButton("Revert", self.unsaved_row)
        self.revert_button.setObjectName("workingPromptRevert")
        self.revert_button.setAccessibleName("Revert the prompt edit")
        self.revert_button.setToolTip("Go back to the recorded prompt  (Escape)")
        row.addStretch(1)
        row.addWidget(self.revert_button)
        row.addWidget(self.save_button)
        self.unsaved_row.setVisible(False)
        layout.addWidget(self.unsaved_row)
        self.restore_edit_button = QPushButton("Restore unsaved edit", box)
        self.restore_edit_button.setObjectName("workingPromptRestoreEdit")
        self.restore_edit_button.setAccessibleName("Restore the unsaved edit")
        self.restore_edit_button.setToolTip(
            "Clear ended the prompt edit you had not saved: put it back in the editor "
            "(the assistant is told only when you save or send)"
        )
        self.restore_edit_button.setVisible(False)
        self.restore_edit_button.clicked.connect(self.restore_edit_requested)
        layout.addWidget(self.restore_edit_button, 0, Qt.AlignmentFlag.AlignRight)
        self.context_button = QPushButton("Show context")
        self.context_button.setObjectName("showContextButton")
        self.context_button.setAccessibleName("Show context")
        self.context_button.setToolTip(
            "Exactly what the model will receive next, and what changed since the last reply"
        )
        # The prompt is what the user came for: one click puts it on the clipboard.
        self.copy_button = QPushButton(COPY_LABEL)
        self.copy_button.setObjectName("workingPromptCopy")
        self.copy_button.setToolTip("Copy the working prompt as it is in the editor")
        self.copy_button.setAccessibleName("Copy the working prompt")
        self.copy_button.clicked.connect(self.copy_prompt)
        actions = QHBoxLayout()
        actions.setContentsMargins(0, 0, 0, 0)
        actions.addWidget(self.copy_button)
        actions.addStretch(1)
        actions.addWidget(self.context_button)
        layout.addLayout(actions)
        self.save_button.clicked.connect(self.save_requested)
        self.revert_button.clicked.connect(self.revert_requested)
        self.context_button.clicked.connect(self.show_context_requested)
        return box

    # -- state -------------------------------------------------------------------------
    @property
    def collapsed(self) -> bool:
        return self._collapsed

    def set_collapsed(self, collapsed: bool) -> None:
        self._collapsed = collapsed
        self.body.setVisible(not collapsed)
        self.toggle.setVisible(collapsed)
        self.setMaximumWidth(COLLAPSED_WIDTH if collapsed else 16777215)
        self.setMinimumWidth(COLLAPSED_WIDTH if collapsed else 200)

    def _changed(self) -> None:
        if not self._loading:
            self.edited.emit(self.editor.toPlainText())

    def _escape(self) -> None:
        if self.indicator.isVisible():
            self.revert_requested.emit()

    def text(self) -> str:
        return self.editor.toPlainText()

    def copy_prompt(self) -> None:
        """Put the editor's text on the clipboard exactly (tabs, newlines and all)."""
        QGuiApplication.clipboard().setText(self.editor.toPlainText())
        self.copy_button.setText(COPIED_LABEL)
        QTimer.singleShot(1500, self, lambda: self.copy_button.setText(COPY_LABEL))

    def set_text_size(self, percent: int) -> None:
        """The prompt at the transcript's text size (``percent``, as Ctrl+= / Ctrl+- set
        it): the prompt is read next to the replies."""
        font = body_font(percent)
        self.editor.setFont(font)
        # The window's style sheet styles this editor, and each restyle (a theme change)
        # gives it the interface font again: its size goes in its own sheet too.
        self.editor.setStyleSheet(f"#workingPromptEditor {{ font-size: {font.pointSizeF()}pt; }}")

    def show_prompt(self, text: str) -> None:
        """Put ``text`` in the editor without counting it as an edit."""
        if self.editor.toPlainText() == text:
            return
        self._loading = True
        try:
            self.editor.setPlainText(text)
        finally:
            self._loading = False

    def set_edited(self, edited: bool) -> None:
        """Show (or end) the "Unsaved edit" state with its Save and Revert buttons."""
        self.indicator.setVisible(edited)
        self.unsaved_row.setVisible(edited)
        self.setProperty("unsaved", edited)
        self.editor.setProperty("unsaved", edited)
        self.editor.style().unpolish(self.editor)
        self.editor.style().polish(self.editor)

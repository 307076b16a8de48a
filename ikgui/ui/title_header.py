"""The open conversation's title above its transcript (issue 20, item 19), as Claude's and
Jan's show it: plain text, elided to the room there is; a click (or Space, the keyboard
on it) opens it for renaming in place — Enter renames, Escape leaves it as it was. The
window renames through the domain session, as the sidebar's inline rename does."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QWidget,
)

from ikgui.ui.plain import line

RENAME_TIP = "Click to rename"


class TitleHeader(QStackedWidget):
    """The title as a button that opens its editor; ``rename_requested`` carries the new
    title (only when it changed and is not blank)."""

    rename_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("titleHeader")
        self._title = ""
        self._renamable = False
        #: The editor is open (checked rather than the page shown: switching pages moves
        #: the focus first, and the editor's focus-out would rename after an Escape).
        self._editing = False
        self.button = QPushButton(self)
        self.button.setObjectName("conversationTitle")
        self.button.setFlat(True)
        self.button.setAutoDefault(False)
        # Its width is the pane's: a long title is elided, never widens the window.
        self.button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.button.clicked.connect(self.start_editing)
        self.editor = QLineEdit(self)
        self.editor.setObjectName("conversationTitleEditor")
        self.editor.setAccessibleName("Conversation title")
        self.editor.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.editor.installEventFilter(self)
        self.editor.returnPressed.connect(self.finish_editing)
        self.addWidget(self.button)
        self.addWidget(self.editor)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    # -- what it shows -------------------------------------------------------------------
    @property
    def title(self) -> str:
        return self._title

    def shown_text(self) -> str:
        """The title as the button shows it (elided; ``&`` as itself)."""
        return self.button.text().replace("&&", "&")

    def set_title(self, title: str, renamable: bool) -> None:
        """Show ``title`` (untrusted: one line of plain text); ``renamable``: a click
        opens the editor (not for a conversation not stored yet, nor in the demo)."""
        if (title, renamable) == (self._title, self._renamable):
            return
        self._title, self._renamable = title, renamable
        self.button.setAccessibleName(f"Conversation title: {line(title)}")
        self.button.setAccessibleDescription(RENAME_TIP if renamable else "")
        self.button.setToolTip(RENAME_TIP if renamable else "")
        self.button.setFocusPolicy(
            Qt.FocusPolicy.StrongFocus if renamable else Qt.FocusPolicy.NoFocus
        )
        self.button.setProperty("renamable", renamable)
        style = self.button.style()
        style.unpolish(self.button)
        style.polish(self.button)
        if not renamable:
            self.cancel_editing()
        self._elide()

    def _elide(self) -> None:
        metrics = self.button.fontMetrics()
        room = max(0, self.width() - 24)  # (the button's padding and border)
        text = metrics.elidedText(line(self._title), Qt.TextElideMode.ElideRight, room)
        self.button.setText(text.replace("&", "&&"))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def sizeHint(self):  # type: ignore[no-untyped-def]
        hint = super().sizeHint()
        hint.setHeight(max(self.button.sizeHint().height(), self.editor.sizeHint().height()))
        return hint

    # -- renaming ------------------------------------------------------------------------
    def start_editing(self) -> None:
        if not self._renamable:
            return
        self._editing = True
        self.editor.setText(self._title)
        self.editor.selectAll()
        self.setCurrentWidget(self.editor)
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    @property
    def editing(self) -> bool:
        return self._editing

    def finish_editing(self) -> None:
        if not self._editing:
            return
        new = " ".join(self.editor.text().split())
        self._back_to_button()
        if new and new != self._title and self._renamable:
            self.rename_requested.emit(new)

    def cancel_editing(self) -> None:
        if self._editing:
            self._back_to_button()

    def _back_to_button(self) -> None:
        self._editing = False
        had_keys = self.editor.hasFocus()
        self.setCurrentWidget(self.button)
        if had_keys and self._renamable:
            self.button.setFocus(Qt.FocusReason.OtherFocusReason)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.editor:
            kind = event.type()
            escape = isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Escape
            if kind == QEvent.Type.ShortcutOverride and escape:
                event.accept()  # Escape is the editor's (not the window's Stop)
                return True
            if kind == QEvent.Type.KeyPress and escape:
                self.cancel_editing()
                return True
            if self._left(event):
                self.finish_editing()  # as the sidebar's editor: leaving keeps it
        return super().eventFilter(watched, event)

    @staticmethod
    def _left(event: QEvent) -> bool:
        """The editor lost the keyboard (not to its own context menu)."""
        if not isinstance(event, QFocusEvent) or event.type() != QEvent.Type.FocusOut:
            return False
        return event.reason() != Qt.FocusReason.PopupFocusReason

"""The prompt editor: Enter sends, Shift+Enter adds a line, Up/Down recall earlier
inputs, Alt+Up/Alt+Down put the keyboard on the transcript's messages, ``/`` opens a
completion list of the commands, Escape asks to stop a stream.

With the list open, Enter on a complete command name runs it (``/help⏎``), unless the
command needs an argument (``/load <ref>``) or another entry was picked in the list;
Enter on a partial name, or Tab, completes it."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QMimeData, QStringListModel, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCompleter,
    QPlainTextEdit,
    QSizePolicy,
    QWidget,
)

HISTORY_LIMIT = 200
MIN_LINES = 2
MAX_LINES = 8


class PromptEditor(QPlainTextEdit):
    submitted = Signal(str)  # the text to send or run
    stop_requested = Signal()
    #: Alt+Up / Alt+Down: the keyboard to the transcript's messages (-1: up, +1: down).
    transcript_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("promptEditor")
        self.setAccessibleName("Message")
        self.setPlaceholderText("Message, or / for commands  (Enter sends, Shift+Enter: new line)")
        self.setTabChangesFocus(True)
        self.history: list[str] = []
        self._history_index: int | None = None
        self._saved_draft = ""
        self._completion_model = QStringListModel(self)
        self.completer = QCompleter(self._completion_model, self)
        self.completer.setWidget(self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.activated.connect(self._complete)
        self.textChanged.connect(self._maybe_complete)
        self._commands: list[tuple[str, str]] = []
        #: Commands that run on Enter as soon as their name is complete.
        self._runnable: set[str] = set()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        layout = self.document().documentLayout()
        layout.documentSizeChanged.connect(lambda _size: self._fit())
        #: Takes files or a picture pasted or dropped here (``False``: not files: the
        #: editor inserts the text). Set by the window.
        self.take_files: Callable[[QMimeData], bool] = lambda mime: False
        #: Whether files are attached (then Enter sends them with no text, too).
        self.sends_files: Callable[[], bool] = lambda: False
        self._fit()

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return source.hasImage() or source.hasUrls() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """A paste: files copied in a file manager, or a picture, are attached."""
        if self.take_files(source):
            return
        super().insertFromMimeData(source)

    def _fit(self) -> None:
        """Grow with the text: two lines empty, at most eight before scrolling."""
        lines = max(MIN_LINES, min(MAX_LINES, int(self.document().size().height())))
        margins = self.contentsMargins()
        frame = margins.top() + margins.bottom() + 2 * int(self.document().documentMargin())
        self.setFixedHeight(lines * self.fontMetrics().lineSpacing() + frame + 6)

    # -- commands ----------------------------------------------------------------
    def set_commands(self, commands: Iterable[tuple[str, str] | tuple[str, str, str]]) -> None:
        """``(name, description)`` or ``(name, description, usage)`` offered after a ``/``;
        a usage with a required argument (``/load <ref>``) completes on Enter, not runs."""
        listed = list(commands)
        self._commands = [(c[0], c[1]) for c in listed]
        self._runnable = {c[0] for c in listed if len(c) < 3 or "<" not in c[2]}
        self._completion_model.setStringList([f"/{n} — {d}" for n, d in self._commands])

    def _runs_as_typed(self, picked: str | None) -> bool:
        """Whether Enter runs the typed line: a complete command name that needs no
        argument, and no other entry ``picked`` in the list."""
        typed = self.toPlainText().strip()
        name = typed[1:]
        chosen = picked.split(" — ", 1)[0] if picked else typed
        return typed.startswith("/") and name in self._runnable and chosen == typed

    def _maybe_complete(self) -> None:
        text = self.toPlainText()
        if (
            text.startswith("/")
            and not text.startswith("//")
            and " " not in text
            and "\n" not in text
        ):
            self.completer.setCompletionPrefix(text)
            if self.completer.completionCount():
                rect = self.cursorRect()
                rect.setWidth(max(360, self.width() // 2))
                self.completer.complete(rect)
                return
        self.popup().hide()

    def _complete(self, choice: str) -> None:
        name = choice.split(" — ", 1)[0]
        self.setPlainText(name + " ")
        self.moveCursor(QTextCursor.MoveOperation.End)

    def popup(self) -> QAbstractItemView:
        view = self.completer.popup()
        assert view is not None
        return view

    # -- history -------------------------------------------------------------------
    def remember(self, text: str) -> None:
        if text.strip() and (not self.history or self.history[-1] != text):
            self.history.append(text)
            del self.history[:-HISTORY_LIMIT]
        self._history_index = None

    def _recall(self, step: int) -> bool:
        if not self.history:
            return False
        if self._history_index is None:
            if step > 0:
                return False
            self._saved_draft = self.toPlainText()
            index = len(self.history) - 1
        else:
            index = self._history_index + step
        if index >= len(self.history):
            self._history_index = None
            self.setPlainText(self._saved_draft)
        else:
            self._history_index = max(0, index)
            self.setPlainText(self.history[self._history_index])
        self.moveCursor(QTextCursor.MoveOperation.End)
        return True

    # -- keys ------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, mods = event.key(), event.modifiers()
        popup = self.popup()
        if popup.isVisible() and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
            index = popup.currentIndex()
            picked = str(index.data()) if index.isValid() else None
            choice = picked or self.completer.currentCompletion()
            popup.hide()
            if key != Qt.Key.Key_Tab and self._runs_as_typed(picked):
                self.submit()
            elif choice:
                self._complete(str(choice))
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if mods & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
                return
            self.submit()
            return
        if key == Qt.Key.Key_Escape:
            popup.hide()
            self.stop_requested.emit()
            return
        if mods == Qt.KeyboardModifier.AltModifier and key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            popup.hide()
            self.transcript_requested.emit(-1 if key == Qt.Key.Key_Up else 1)
            return
        cursor = self.textCursor()
        up = key == Qt.Key.Key_Up and not popup.isVisible() and cursor.blockNumber() == 0
        if up and self._recall(-1):
            return
        if key == Qt.Key.Key_Down and not popup.isVisible():
            last_block = self.document().blockCount() - 1
            if cursor.blockNumber() == last_block and self._recall(+1):
                return
        super().keyPressEvent(event)

    def submit(self) -> None:
        text = self.toPlainText().strip("\n")
        if not text.strip() and not self.sends_files():
            return
        self.remember(text)
        self.clear()
        self.submitted.emit(text)

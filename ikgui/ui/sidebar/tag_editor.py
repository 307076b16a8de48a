"""The tag editor: one line of comma- or space-separated tags, completion of the tags
already in use, and a visible message for a tag that is not allowed.

It only *asks*: accepting emits ``tags_accepted`` with the complete new list (normalized,
sorted, without duplicates); the window applies it through the domain session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QPalette, QShowEvent
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.errors import UserError
from ikgui.domain.events import Conversation
from ikgui.domain.ids import normalize_tag
from ikgui.ui.plain import block, line, make_plain, plain_label

#: The error text colour on a light and on a dark background.
ERROR_LIGHT = "#b3261e"
ERROR_DARK = "#f08a82"
HINT = "Separate tags with commas or spaces: letters, digits and - _ . + (up to 32)."
HEADING_CHARS = 48
_SEPARATORS = re.compile(r"[,\s]+")
_LAST_WORD = re.compile(r"[^,\s]*$")


def parse_tags(text: str) -> list[str]:
    """The tags written in ``text``, normalized, sorted and unique; raises ``UserError``
    (with the user-facing reason) on the first tag that is not allowed."""
    tags = {normalize_tag(word) for word in _SEPARATORS.split(text) if word.strip()}
    return sorted(tags)


class TagCompleter(QCompleter):
    """Completes the word being typed (the text after the last comma or space)."""

    def __init__(self, tags: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(list(tags), parent)
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setFilterMode(Qt.MatchFlag.MatchStartsWith)

    def set_tags(self, tags: Sequence[str]) -> None:
        model = self.model()
        if isinstance(model, QStringListModel):
            model.setStringList(list(tags))

    def splitPath(self, path: str) -> list[str]:
        match = _LAST_WORD.search(path)
        return [match.group(0).lstrip("#") if match else ""]

    def pathFromIndex(self, index: QModelIndex | QPersistentModelIndex) -> str:
        widget = self.widget()
        text = widget.text() if isinstance(widget, QLineEdit) else ""
        match = _LAST_WORD.search(text)
        head = text[: match.start()] if match else text
        return f"{head}{index.data()}, "


def _heading(conv: Conversation | None, count: int) -> str:
    if conv is None:
        return f"Add tags to {count} conversations"
    title = line(conv.title) if conv.title else "Untitled"
    if len(title) > HEADING_CHARS:
        title = title[: HEADING_CHARS - 1].rstrip() + "…"
    return f"Tags of “{title}”"


class TagEditorDialog(QDialog):
    """Edit one conversation's tags, or (``conv`` None) choose tags to add to ``count``
    selected conversations; ``tags_accepted(list)`` on OK."""

    tags_accepted = Signal(list)

    def __init__(
        self,
        conv: Conversation | None,
        known_tags: Sequence[str],
        parent: QWidget | None = None,
        *,
        count: int = 1,
    ) -> None:
        super().__init__(parent)
        self.conversation_id = conv.id if conv is not None else None
        self.setObjectName("tagEditor")
        self.setAccessibleName("tagEditor")
        self.setWindowTitle(f"Tags — {line(conv.id)}" if conv is not None else "Add tags")
        self.setMinimumWidth(420)
        current = conv.tags if conv is not None else ()

        heading = plain_label(_heading(conv, count))  # a title is untrusted: never HTML
        heading.setObjectName("tagHeading")
        bold = heading.font()
        bold.setBold(True)
        heading.setFont(bold)
        self.line = QLineEdit(", ".join(current) + (", " if current else ""))
        self.line.setObjectName("tagEdit")
        self.line.setAccessibleName("tagEdit")
        self.line.setPlaceholderText("e.g. work, ideas, draft")
        self.line.setClearButtonEnabled(True)
        self.completer = TagCompleter(known_tags, self)
        self.line.setCompleter(self.completer)
        # One label for the hint and the error, two lines tall: the dialog never jumps.
        self.message = make_plain(QLabel(HINT))  # the error quotes what was typed
        self.message.setObjectName("tagMessage")
        self.message.setAccessibleName("tagMessage")
        self.message.setWordWrap(True)
        self.message.setMinimumHeight(2 * self.message.fontMetrics().lineSpacing() + 2)
        self.message.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.error_text = ""
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.setObjectName("tagButtons")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.setSpacing(8)
        for widget in (heading, self.line, self.message, self.buttons):
            layout.addWidget(widget)
        self._show_message("")
        self.line.textChanged.connect(self._validate)
        self.line.setFocus()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # Focusing selected the whole line; typing should add a tag, not replace them all.
        QTimer.singleShot(0, lambda: self.line.end(False))

    def _show_message(self, error: str) -> None:
        self.error_text = error
        palette = self.palette()
        if error:
            dark = palette.color(QPalette.ColorRole.Base).lightnessF() < 0.5
            color = ERROR_DARK if dark else ERROR_LIGHT
        else:
            color = palette.color(QPalette.ColorRole.PlaceholderText).name()
        self.message.setStyleSheet(f"color: {color};")
        self.message.setText(block(error or HINT))

    def tags(self) -> list[str] | None:
        """The tags written, or ``None`` (with the reason shown) if one is not allowed."""
        try:
            tags = parse_tags(self.line.text())
        except UserError as exc:
            self._show_message(exc.message)
            return None
        self._show_message("")
        return tags

    def _validate(self) -> None:
        ok = self.tags() is not None
        button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if button is not None:
            button.setEnabled(ok)

    def accept(self) -> None:
        tags = self.tags()
        if tags is None:
            return  # the reason stays visible; the dialog stays open
        self.tags_accepted.emit(tags)
        super().accept()

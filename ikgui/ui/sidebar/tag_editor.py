"""The tag editor: the tags as chips (click one's ✕, or Backspace in the empty line, to
remove it) and a line to type more, completing the tags already in use; a comma, a space
or a chosen completion turns what was typed into a chip. A tag that is not allowed stays
in the line with a visible message.

It only *asks*: accepting emits ``tags_accepted`` with the complete new list (normalized,
sorted, without duplicates); the window applies it through the domain session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QStringListModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.errors import UserError
from ikgui.domain.events import Conversation
from ikgui.domain.state.ids import normalize_tag
from ikgui.ui.plain import action_text, block, line, make_plain, plain_label, tooltip
from ikgui.ui.sidebar.chips import chip_label
from ikgui.ui.sidebar.tag_chips import FlowLayout, chip_style

#: The error text colour on a light and on a dark background.
ERROR_LIGHT = "#b3261e"
ERROR_DARK = "#f08a82"
HINT = "A comma or space adds the tag: letters, digits and - _ . + (up to 32)."
HEADING_CHARS = 48
#: The most chips the editor shows (the first tags; the rest are counted): a
#: conversation with 100,000 imported tags opens as fast as one with ten. Removing a chip
#: brings the next one in.
CHIPS_SHOWN = 24
#: The most characters of a tag a chip's tooltip shows.
TOOLTIP_CHARS = 300
_SEPARATORS = re.compile(r"[,\s]+")
_LAST_WORD = re.compile(r"[^,\s]*$")
#: What was typed: the words up to the last separator (done), and the word after it.
_TYPED = re.compile(r"(.*[,\s])([^,\s]*)", re.DOTALL)


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
        self.setAccessibleName("Tags")
        self.setWindowTitle(f"Tags — {line(conv.id)}" if conv is not None else "Add tags")
        self.setMinimumWidth(420)
        current = conv.tags if conv is not None else ()

        heading = plain_label(_heading(conv, count))  # a title is untrusted: never HTML
        heading.setObjectName("tagHeading")
        bold = heading.font()
        bold.setBold(True)
        heading.setFont(bold)
        self.chip_tags: list[str] = []
        self.chip_box = QWidget(self)
        self.chip_box.setObjectName("tagChips")
        self.chip_box.setStyleSheet(chip_style(self.palette(), "tagChip", "tagChipQuiet"))
        self._flow = FlowLayout(self.chip_box)
        self.line = QLineEdit("")
        self.line.setObjectName("tagEdit")
        self.line.setAccessibleName("Add a tag")
        self.line.setPlaceholderText("Add a tag: e.g. work, ideas, draft")
        self.line.setClearButtonEnabled(True)
        self.line.installEventFilter(self)
        self.completer = TagCompleter(known_tags, self)
        self.line.setCompleter(self.completer)
        # One label for the hint and the error, two lines tall: the dialog never jumps.
        self.message = make_plain(QLabel(HINT))  # the error quotes what was typed
        self.message.setObjectName("tagMessage")
        self.message.setAccessibleName("Tag status")
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
        for widget in (heading, self.chip_box, self.line, self.message, self.buttons):
            layout.addWidget(widget)
        self._show_message("")
        self.line.textChanged.connect(self._on_typed)
        self._set_chips(list(current))
        self.line.setFocus()

    # -- chips -----------------------------------------------------------------------------
    def _set_chips(self, tags: list[str]) -> None:
        self.chip_tags = sorted(set(tags))
        while (item := self._flow.takeAt(0)) is not None:
            widget = item.widget()
            if widget is not None:
                widget.deleteLater()
        for tag in self.chip_tags[:CHIPS_SHOWN]:
            chip = QToolButton(self.chip_box)
            chip.setObjectName("tagChip")
            chip.setAccessibleName(f"Remove tag {chip_label(tag)}")
            chip.setText(action_text(f"#{chip_label(tag)}  ✕"))
            chip.setToolTip(tooltip(f"Remove “{tag[:TOOLTIP_CHARS]}”"))
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.clicked.connect(lambda _=False, t=tag: self.remove_tag(t))
            self._flow.addWidget(chip)
        hidden = len(self.chip_tags) - CHIPS_SHOWN
        if hidden > 0:
            more = make_plain(QLabel(f"and {hidden:,} more", self.chip_box))
            more.setObjectName("tagChipsMore")
            more.setToolTip(
                tooltip(f"{len(self.chip_tags):,} tags: the first {CHIPS_SHOWN} are shown")
            )
            self._flow.addWidget(more)
        self.chip_box.setVisible(bool(self.chip_tags))
        self._validate()

    def shown_chips(self) -> list[str]:
        """The tags shown as chips (the first ``CHIPS_SHOWN``)."""
        return self.chip_tags[:CHIPS_SHOWN]

    def remove_tag(self, tag: str) -> None:
        self._set_chips([t for t in self.chip_tags if t != tag])
        self.line.setFocus()

    def _on_typed(self, text: str) -> None:
        """Words followed by a separator become chips once they are all allowed."""
        split = _TYPED.fullmatch(text)
        done, rest = (split.group(1), split.group(2)) if split else ("", text)
        if done.strip():
            try:
                typed = parse_tags(done)
            except UserError:
                typed = None
            if typed is not None:
                self.line.blockSignals(True)
                self.line.setText(rest.lstrip())
                self.line.blockSignals(False)
                self._set_chips([*self.chip_tags, *typed])
                return
        self._validate()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.line and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Backspace and not self.line.text() and self.chip_tags:
                self.remove_tag(self.shown_chips()[-1])  # the last one in sight
                return True
        return super().eventFilter(watched, event)

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
            tags = sorted({*self.chip_tags, *parse_tags(self.line.text())})
        except UserError as exc:
            self._show_message(exc.message)
            return None
        self._show_message("")
        return tags

    def _validate(self) -> None:
        """Check what is typed (the chips are allowed already): a keystroke costs the
        line, not a pass over every tag of a conversation with thousands."""
        try:
            parse_tags(self.line.text())
        except UserError as exc:
            self._show_message(exc.message)
            ok = False
        else:
            self._show_message("")
            ok = True
        button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if button is not None:
            button.setEnabled(ok)

    def accept(self) -> None:
        tags = self.tags()
        if tags is None:
            return  # the reason stays visible; the dialog stays open
        self.tags_accepted.emit(tags)
        super().accept()

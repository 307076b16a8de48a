"""The toolbar's model selector (``modelSelector``): models grouped by provider, as
Chatbox and Cherry Studio list them — a heading per provider, its models under it, and
a line saying when its list is being asked for or unavailable.

Each model item carries its provider: choosing one names the pair, so a model is never
taken under a provider that did not list it. The closed box shows the open
conversation's provider and model ("local · mock-gpt"). Names come from servers and the
config: shown through :mod:`ikgui.ui.plain`, never as rich text.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPaintEvent, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

from ikgui.domain.state.catalog import ModelGroup
from ikgui.ui.plain import line, tooltip
from ikgui.ui.window.state import NO_MODEL  # (when no model is known yet)

#: The provider of an item (a heading's, a note's, a model's).
PROVIDER_ROLE = Qt.ItemDataRole.UserRole + 1
#: What an item is: a provider's heading, a note under it, or a model one can choose.
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
HEADING, NOTE, MODEL = "heading", "note", "model"


class ModelBox(QComboBox):
    #: The list is about to open (lists that could not be fetched are asked again).
    opening = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items = QStandardItemModel(self)
        self.setModel(self.items)
        self.setPlaceholderText(NO_MODEL)
        #: The open conversation's provider (shown in the box beside its model).
        self.provider = ""
        self._shown: object = None

    # -- filling --------------------------------------------------------------------
    def show_groups(self, groups: Sequence[ModelGroup], provider: str, model: str | None) -> None:
        """List ``groups`` and show ``provider``'s ``model`` as chosen (``None``: none
        yet). Rebuilt only when something changed (the chrome asks after every event)."""
        key = (tuple(groups), provider, model)
        if key == self._shown:
            return
        self._shown = key
        self.blockSignals(True)
        self.items.clear()
        for group in groups:
            self.items.appendRow(_heading(group.provider))
            if group.note:
                self.items.appendRow(_note(group))
            for name in group.models:
                self.items.appendRow(_model(group.provider, name))
        self.provider = provider
        self.setCurrentIndex(self.index_of(provider, model) if model else -1)
        self.blockSignals(False)
        self.update()

    def index_of(self, provider: str, model: str | None) -> int:
        for row in range(self.count()):
            if self.choice(row) == (provider, model):
                return row
        return -1

    # -- reading ----------------------------------------------------------------------
    def choice(self, row: int) -> tuple[str, str] | None:
        """The (provider, model) of ``row``, or ``None`` for a heading or a note."""
        if self.itemData(row, KIND_ROLE) != MODEL:
            return None
        return str(self.itemData(row, PROVIDER_ROLE)), str(self.itemData(row))

    def choices(self) -> list[tuple[str, str]]:
        """Every (provider, model) listed, in order."""
        rows = (self.choice(row) for row in range(self.count()))
        return [c for c in rows if c is not None]

    def headings(self) -> list[str]:
        return [
            str(self.itemData(row, PROVIDER_ROLE))
            for row in range(self.count())
            if self.itemData(row, KIND_ROLE) == HEADING
        ]

    def notes(self, provider: str) -> list[str]:
        """The lines under ``provider``'s heading that are not models ("unavailable"...)."""
        return [
            self.itemText(row)
            for row in range(self.count())
            if self.itemData(row, KIND_ROLE) == NOTE
            and self.itemData(row, PROVIDER_ROLE) == provider
        ]

    def shown_text(self) -> str:
        """What the closed box says: the provider and the model."""
        model = self.currentText() if self.currentIndex() >= 0 else self.placeholderText()
        return f"{line(self.provider)} · {model}" if self.provider else model

    # -- Qt ---------------------------------------------------------------------------
    def showPopup(self) -> None:
        self.opening.emit()
        super().showPopup()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The box as Qt draws it, with "provider · model" as its text."""
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        if self.currentIndex() < 0:
            option.palette.setBrush(QPalette.ColorRole.ButtonText, option.palette.placeholderText())
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            option,
            QStyle.SubControl.SC_ComboBoxEditField,
            self,
        )
        option.currentText = self._fitted(max(field.width(), 0))
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def _fitted(self, width: int) -> str:
        """The shown text in ``width`` pixels: the provider whole and the model cut in
        its middle (its size and tag are at its end), else cut at the end."""
        metrics = self.fontMetrics()
        text = self.shown_text()
        if metrics.horizontalAdvance(text) <= width or not self.provider:
            return metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, width)
        head = f"{line(self.provider)} · "
        rest = width - metrics.horizontalAdvance(head)
        model = text[len(head) :]
        if rest >= metrics.horizontalAdvance(model[:4] + "…"):
            return head + metrics.elidedText(model, Qt.TextElideMode.ElideMiddle, rest)
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


def _heading(provider: str) -> QStandardItem:
    item = QStandardItem(line(provider))
    item.setFlags(Qt.ItemFlag.NoItemFlags)  # not a choice: arrows and clicks pass it
    font = item.font()
    font.setBold(True)
    item.setFont(font)
    item.setData(provider, PROVIDER_ROLE)
    item.setData(HEADING, KIND_ROLE)
    item.setData(f"Provider {line(provider)}", Qt.ItemDataRole.AccessibleTextRole)
    return item


def _note(group: ModelGroup) -> QStandardItem:
    item = QStandardItem(group.note or "")
    item.setFlags(Qt.ItemFlag.NoItemFlags)
    font = item.font()
    font.setItalic(True)
    item.setFont(font)
    item.setData(group.provider, PROVIDER_ROLE)
    item.setData(NOTE, KIND_ROLE)
    if group.detail:  # the server's words: escaped
        item.setToolTip(tooltip(group.detail))
    return item


def _model(provider: str, name: str) -> QStandardItem:
    item = QStandardItem(line(name))  # the exact name stays in the item's data
    item.setData(name, Qt.ItemDataRole.UserRole)
    item.setData(provider, PROVIDER_ROLE)
    item.setData(MODEL, KIND_ROLE)
    item.setData(f"{line(name)} at {line(provider)}", Qt.ItemDataRole.AccessibleTextRole)
    return item

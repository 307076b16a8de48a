"""The sidebar's tree view (keyboard handling: Enter activates, Delete asks to trash,
F2 renames; the context-menu request; a placeholder text when the list is empty) and its
tag filter box."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QKeyEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QTreeView, QWidget

from ikgui.ui.plain import line


class ConversationTreeView(QTreeView):
    activation_requested = Signal(QModelIndex)  # Enter / Return on the current row
    delete_requested = Signal(QModelIndex)  # the Delete key on the current row
    menu_requested = Signal(QModelIndex, QPoint)  # the row and a global position

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationList")
        self.setAccessibleName("conversationList")
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)  # one height for every row: fast with 10,000 rows
        self.setIndentation(16)
        self.setAnimated(False)
        self.setExpandsOnDoubleClick(False)  # a double-click renames
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.DoubleClicked
        )
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMouseTracking(True)
        self.placeholder = ""

    def set_placeholder(self, text: str) -> None:
        self.placeholder = text
        self.viewport().update()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        editing = self.state() == QAbstractItemView.State.EditingState
        index = self.currentIndex()
        if (
            not editing
            and index.isValid()
            and event.modifiers()
            in (
                Qt.KeyboardModifier.NoModifier,
                Qt.KeyboardModifier.KeypadModifier,
            )
        ):
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.activation_requested.emit(index)
                event.accept()
                return
            if event.key() == Qt.Key.Key_Delete:
                self.delete_requested.emit(index)
                event.accept()
                return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if event.reason() == QContextMenuEvent.Reason.Mouse:
            index = self.indexAt(event.pos())
            where = event.globalPos()
        else:  # the Menu key or Shift+F10: at the current row
            index = self.currentIndex()
            where = self.viewport().mapToGlobal(self.visualRect(index).center())
        if index.isValid():
            self.menu_requested.emit(index, where)
            event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        model = self.model()
        if not self.placeholder or model is None or model.rowCount() > 0:
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        area = self.viewport().rect().adjusted(16, 24, -16, -16)
        flags = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
        painter.drawText(area, int(flags), self.placeholder)
        painter.end()


class TagFilterBox(QComboBox):
    """ "All tags" and every tag in use; ``itemData`` is the tag (``None`` for all)."""

    ALL_TAGS = "All tags"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tagFilter")
        self.setAccessibleName("tagFilter")
        self.setToolTip("Show only conversations with this tag")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(8)
        self._tags: set[str] = set()

    def knows(self, tags: Collection[str]) -> bool:
        return all(t in self._tags for t in tags)

    def set_tags(self, tags: Sequence[str], chosen: str | None) -> None:
        """List ``tags`` with ``chosen`` selected, without emitting index changes."""
        if set(tags) == self._tags and self.count() > len(tags):
            return  # unchanged: leave the box (and its open popup) alone
        self._tags = set(tags)
        self.blockSignals(True)
        self.clear()
        self.addItem(self.ALL_TAGS, None)
        for tag in tags:
            self.addItem(f"#{line(tag)}", tag)
        if chosen is not None and chosen not in self._tags:
            self.addItem(f"#{line(chosen)}", chosen)  # keep showing the filter the user chose
        self.setCurrentIndex(max(0, self.findData(chosen)) if chosen is not None else 0)
        self.blockSignals(False)

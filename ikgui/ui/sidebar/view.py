"""The sidebar's tree view (keyboard handling: Enter activates, Delete asks to trash,
F2 renames, Ctrl+P pins or unpins, End reaches the last conversation, loaded first; the
context-menu request; a placeholder text when the list is empty). Rows differ in height (a
group's first row carries its header), so the branch arrows are drawn beside the row,
below its header.

Selection is extended (Shift/Ctrl-click, Shift+arrows) for actions on several rows. A
press on a tag chip of a row (the delegate's ``tag_at``) does not select the row: its
release emits ``tag_clicked`` instead."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRect, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QShowEvent,
)
from PySide6.QtWidgets import QAbstractItemView, QStyleOptionViewItem, QTreeView, QWidget

from ikgui.ui.icons import icon
from ikgui.ui.sidebar.tree import ConversationTree

#: Pins or unpins the selected rows (the context menu shows the key beside "Pin").
PIN_KEY = QKeySequence("Ctrl+P")


class ConversationTreeView(QTreeView):
    activation_requested = Signal(QModelIndex)  # Enter / Return on the current row
    delete_requested = Signal(QModelIndex)  # the Delete key on the current row
    menu_requested = Signal(QModelIndex, QPoint)  # the row and a global position
    tag_clicked = Signal(str)  # a tag chip on a row was clicked
    pin_key_pressed = Signal()  # Ctrl+P: pin (or unpin) the selected rows
    #: End (Ctrl+End, Shift+End): the list loads its last rows before the view goes there.
    end_pressed = Signal()
    # (class defaults: the base class's constructor already lays the view out)
    _layout_when_shown = False
    _scroll_when_shown = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationList")
        self.setAccessibleName("Conversations")
        self.setHeaderHidden(True)
        # A group's first row is taller (its header): the delegate's size hints are cheap
        # and cached by the view, so 10,000 rows still lay out and scroll fast
        # (benchmarks/bench_sidebar.py).
        self.setUniformRowHeights(False)
        self.setIndentation(16)
        self.setAnimated(False)
        self.setExpandsOnDoubleClick(False)  # a double-click renames
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.DoubleClicked
        )
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        # Rows (one or the selection) are dragged onto the folder tree to file them.
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMouseTracking(True)
        self.placeholder = ""
        self._chip_pressed: str | None = None

    def tag_at(self, pos: QPoint) -> str | None:
        """The tag of the chip under ``pos`` (viewport coordinates), if any."""
        index = self.indexAt(pos)
        tag_at = getattr(self.itemDelegate(), "tag_at", None)
        if not index.isValid() or tag_at is None:
            return None
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        option.rect = self.visualRect(index)
        found = tag_at(option, index, pos)
        return found if isinstance(found, str) else None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        plain = event.modifiers() == Qt.KeyboardModifier.NoModifier
        if event.button() == Qt.MouseButton.LeftButton and plain:
            self._chip_pressed = self.tag_at(event.position().toPoint())
            if self._chip_pressed is not None:
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pressed, self._chip_pressed = self._chip_pressed, None
        if pressed is not None:
            event.accept()
            if self.tag_at(event.position().toPoint()) == pressed:
                self.tag_clicked.emit(pressed)
            return
        super().mouseReleaseEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        over_chip = self.tag_at(event.position().toPoint()) is not None
        if over_chip != (self.viewport().cursor().shape() == Qt.CursorShape.PointingHandCursor):
            if over_chip:
                self.viewport().setCursor(Qt.CursorShape.PointingHandCursor)
            else:
                self.viewport().unsetCursor()
        super().mouseMoveEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if self.tag_at(event.position().toPoint()) is not None:
            event.accept()  # a chip is not the title: no rename
            return
        super().mouseDoubleClickEvent(event)

    def set_placeholder(self, text: str) -> None:
        self.placeholder = text
        self.viewport().update()

    def drawBranches(
        self, painter: QPainter, rect: QRect, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        model, fonts = self.model(), getattr(self.itemDelegate(), "fonts", None)
        if fonts is not None and isinstance(model, ConversationTree) and model.header_at(index):
            rect = rect.adjusted(0, fonts(self.font()).header_h, 0, 0)
        super().drawBranches(painter, rect, index)
        # (Only the tree: a list model's hasChildren is private in Qt, and crashes.)
        tree = isinstance(model, ConversationTree)
        if tree and self._is_selected(index) and model.hasChildren(index):
            self._draw_arrow(painter, rect, self.isExpanded(index))

    def _is_selected(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        selection = self.selectionModel()
        return selection is not None and selection.isSelected(index)

    def _draw_arrow(self, painter: QPainter, rect: QRect, expanded: bool) -> None:
        """The expand arrow of a selected row: the style sheet's background for a
        selected branch area drops the style's arrow, and a row with forks or versions
        folded under it (the one an opened alternative selects, issue 25) must still
        show it can open."""
        side = min(self.indentation(), rect.height())
        cell = QRect(rect.right() - self.indentation() + 1, rect.top(), self.indentation(), side)
        cell.moveCenter(QPoint(cell.center().x(), rect.center().y()))
        ink = self.palette().color(QPalette.ColorRole.Text)
        painter.save()
        painter.translate(cell.center())
        if not expanded:
            painter.rotate(-90)
        painter.translate(-cell.center())
        icon("chevron-down", ink).paint(painter, cell)
        painter.restore()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        editing = self.state() == QAbstractItemView.State.EditingState
        if not editing and QKeySequence(event.keyCombination()) == PIN_KEY:
            self.pin_key_pressed.emit()
            event.accept()
            return
        if not editing and event.key() == Qt.Key.Key_End:
            self.end_pressed.emit()  # then the view moves to the (now loaded) last row
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

    def scroll_to_current(self) -> None:
        """Scroll the current row into view; while the list is hidden (a narrow window),
        when it is shown."""
        if self.isVisible():
            self.scrollTo(self.currentIndex())
        else:
            self._scroll_when_shown = True

    def doItemsLayout(self) -> None:
        """Lay every loaded row out, but not while the list is hidden in a shown window
        (a narrow one): Qt would at each new or moved row (a send), for a list nobody
        sees; it is laid out when shown. (A list outside a shown window, e.g. in tests,
        is laid out as usual.)"""
        if not self.isVisible() and self.window().isVisible():
            self._layout_when_shown = True
            return
        super().doItemsLayout()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._layout_when_shown:
            self._layout_when_shown = False
            super().doItemsLayout()
        if self._scroll_when_shown:
            self._scroll_when_shown = False
            self.scrollTo(self.currentIndex())

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

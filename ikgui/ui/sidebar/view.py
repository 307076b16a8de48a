"""The sidebar's conversation list view (keyboard handling: Enter activates, Delete asks
to trash, F2 renames, Ctrl+P pins or unpins, Right and Left expand and collapse a row's
forks, End reaches the last conversation; the context-menu request; a placeholder text
when the list is empty).

Every row is as tall as the others (a group's header is a row of its own), so Qt lays
10,000 rows out without asking Python about each (issue 26); the rows' arrows and
indentation are the delegate's, and expansion is the model's (a list view has none).
When the gap row (conversations not read yet, after End) comes into view, the view asks
for the page that fills it from the side the user is looking at, keeping what is on
screen in place.

Selection is extended (Shift/Ctrl-click, Shift+arrows) for actions on several rows. A
press on a tag chip of a row (the delegate's ``tag_at``) does not select the row: its
release emits ``tag_clicked`` instead; a press on a row's arrow expands or collapses it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
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
from PySide6.QtWidgets import QAbstractItemView, QListView, QStyleOptionViewItem, QWidget

from ikgui.ui.sidebar.rows import GapRole, HeaderRole, IdRole
from ikgui.ui.sidebar.tree import ConversationTree

#: Pins or unpins the selected rows (the context menu shows the key beside "Pin").
PIN_KEY = QKeySequence("Ctrl+P")


class ConversationListView(QListView):
    activation_requested = Signal(QModelIndex)  # Enter / Return on the current row
    delete_requested = Signal(QModelIndex)  # the Delete key on the current row
    menu_requested = Signal(QModelIndex, QPoint)  # the row and a global position
    tag_clicked = Signal(str)  # a tag chip on a row was clicked
    pin_key_pressed = Signal()  # Ctrl+P: pin (or unpin) the selected rows
    #: End (Ctrl+End, Shift+End): the list loads its last rows before the view goes there.
    end_pressed = Signal()
    #: The gap row is in view: fill it from below (the rows under it are on screen) or
    #: from above.
    gap_shown = Signal(bool)
    # (class defaults: the base class's constructor already lays the view out)
    _layout_when_shown = False
    _scroll_when_shown = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationList")
        self.setAccessibleName("Conversations")
        self.setUniformItemSizes(True)
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
        self._arrow_pressed = False
        self._gap_check = QTimer(self)
        self._gap_check.setSingleShot(True)
        self._gap_check.setInterval(0)
        self._gap_check.timeout.connect(self._check_gap)
        self.verticalScrollBar().valueChanged.connect(lambda _v: self._gap_check.start())

    def setModel(self, model: QAbstractItemModel | None) -> None:
        # The search results differ in height (a snippet line or not): a few hundred
        # rows at most, each asked its size.
        self.setUniformItemSizes(isinstance(model, ConversationTree))
        super().setModel(model)
        if model is not None:
            for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset):
                # (once: the list and the search results take turns as the model)
                signal.connect(self._gap_check.start, Qt.ConnectionType.UniqueConnection)

    def dataChanged(
        self,
        topLeft: QModelIndex | QPersistentModelIndex,
        bottomRight: QModelIndex | QPersistentModelIndex,
        roles: Sequence[int] = (),
    ) -> None:
        # A list view lays every row out again and repaints the whole viewport at each
        # change of a row (its size may have changed); here no row changes size (all are
        # as tall; a search result's snippet comes with the row), so only the changed
        # rows are repainted (a streaming badge, a count read: issue 26).
        QAbstractItemView.dataChanged(self, topLeft, bottomRight, list(roles))

    def moveCursor(
        self, cursorAction: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        """Qt's move, passing over headers and the gap (rows that are not conversations):
        Home goes to the first conversation, End to the last, the arrows skip a header."""
        index = super().moveCursor(cursorAction, modifiers)
        model = self.model()
        if model is None or not index.isValid() or index.data(IdRole) is not None:
            return index
        action = QAbstractItemView.CursorAction
        up = cursorAction in (action.MoveUp, action.MovePrevious, action.MovePageUp, action.MoveEnd)
        step = -1 if up else 1
        row = index.row()
        while 0 <= row < model.rowCount() and model.index(row, 0).data(IdRole) is None:
            row += step
        if not 0 <= row < model.rowCount():  # nothing that way: the other way
            row = index.row()
            while 0 <= row < model.rowCount() and model.index(row, 0).data(IdRole) is None:
                row -= step
        return model.index(row, 0) if 0 <= row < model.rowCount() else self.currentIndex()

    def _tree(self) -> ConversationTree | None:
        model = self.model()
        return model if isinstance(model, ConversationTree) else None

    # -- the gap -------------------------------------------------------------------------
    def _check_gap(self) -> None:
        """Ask for the gap to be filled when it is in view (after a scroll, a change)."""
        tree = self._tree()
        if tree is None or not self.isVisible() or not getattr(tree, "gap", False):
            return
        self.executeDelayedItemsLayout()
        gap = next(
            (
                tree.index(row, 0)
                for row in self._rows_in_view()
                if tree.index(row, 0).data(GapRole)
            ),
            None,
        )
        if gap is None:
            return
        above = self.indexAt(QPoint(4, 1))
        self.gap_shown.emit(above == gap or self.visualRect(gap).top() <= 0)

    def _rows_in_view(self) -> range:
        first = self.indexAt(QPoint(4, 1))
        last = self.indexAt(QPoint(4, self.viewport().height() - 2))
        model = self.model()
        count = model.rowCount() if model is not None else 0
        start = first.row() if first.isValid() else 0
        end = last.row() if last.isValid() else count - 1
        return range(max(0, start), min(count, end + 1))

    def keeping_place(self, change: Callable[[], object]) -> None:
        """Run ``change`` (rows inserted into the gap, above the rows below it in view)
        with the first of those rows kept where it is on screen."""
        model = self.model()
        if model is None:
            change()
            return
        rows = [model.index(r, 0) for r in self._rows_in_view()]
        gaps = [i.row() for i in rows if i.data(GapRole)]
        # The first conversation below the gap (a header may be removed by the change).
        first = next(
            (i for i in rows if (not gaps or i.row() > gaps[0]) and i.data(IdRole) is not None),
            QModelIndex(),
        )
        anchor = QPersistentModelIndex(first)
        offset = self.visualRect(anchor).top() if anchor.isValid() else 0
        change()
        if not anchor.isValid():
            return
        self.executeDelayedItemsLayout()
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + self.visualRect(anchor).top() - offset)

    def _option(self, index: QModelIndex | QPersistentModelIndex) -> QStyleOptionViewItem:
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        option.rect = self.visualRect(index)
        return option

    def arrow_at(self, pos: QPoint) -> QModelIndex:
        """The row whose arrow (it has forks or versions under it) is under ``pos``."""
        index = self.indexAt(pos)
        arrow_of = getattr(self.itemDelegate(), "arrow_rect", None)
        if not index.isValid() or arrow_of is None:
            return QModelIndex()
        place = arrow_of(self._option(index), index)
        return index if place is not None and place.contains(pos) else QModelIndex()

    def toggle(self, index: QModelIndex | QPersistentModelIndex) -> None:
        """Expand the row, or collapse it."""
        tree = self._tree()
        if tree is None or not index.isValid():
            return
        if tree.is_expanded(index):
            tree.collapse(index)
        else:
            tree.expand(index)

    def tag_at(self, pos: QPoint) -> str | None:
        """The tag of the chip under ``pos`` (viewport coordinates), if any."""
        index = self.indexAt(pos)
        tag_at = getattr(self.itemDelegate(), "tag_at", None)
        if not index.isValid() or tag_at is None:
            return None
        found = tag_at(self._option(index), index, pos)
        return found if isinstance(found, str) else None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        plain = event.modifiers() == Qt.KeyboardModifier.NoModifier
        if event.button() == Qt.MouseButton.LeftButton and plain:
            arrow = self.arrow_at(event.position().toPoint())
            if arrow.isValid():
                self._arrow_pressed = True
                self.toggle(arrow)
                event.accept()
                return
            self._chip_pressed = self.tag_at(event.position().toPoint())
            if self._chip_pressed is not None:
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._arrow_pressed:
            self._arrow_pressed = False
            event.accept()  # (not a click: nothing is opened)
            return
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
        if self.arrow_at(event.position().toPoint()).isValid():
            self.mousePressEvent(event)  # a second press on the arrow toggles again
            return
        if self.tag_at(event.position().toPoint()) is not None:
            event.accept()  # a chip is not the title: no rename
            return
        super().mouseDoubleClickEvent(event)

    def set_placeholder(self, text: str) -> None:
        self.placeholder = text
        self.viewport().update()

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
            if event.key() in (Qt.Key.Key_Right, Qt.Key.Key_Left) and self._tree() is not None:
                self._branch_key(index, event.key() == Qt.Key.Key_Right)
                event.accept()
                return
        super().keyPressEvent(event)

    def _branch_key(self, index: QModelIndex, right: bool) -> None:
        """Right expands the row (or goes to its first fork), Left collapses it (or goes
        to the row it is nested under), as in a tree."""
        tree = self._tree()
        assert tree is not None
        expanded = tree.is_expanded(index) and tree.has_children(index)
        if right and not expanded and tree.has_children(index):
            tree.expand(index)
        elif right and expanded:
            self._go_to(tree.index(index.row() + 1, 0))
        elif not right and expanded:
            tree.collapse(index)
        elif not right:
            self._go_to(tree.parent_row(index))

    def _go_to(self, index: QModelIndex) -> None:
        if index.isValid():
            flag = self.selectionModel().SelectionFlag.ClearAndSelect
            self.selectionModel().setCurrentIndex(index, flag)

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
            self._scroll_to(self.currentIndex())
        else:
            self._scroll_when_shown = True

    def _scroll_to(self, index: QModelIndex) -> None:
        """Scroll ``index`` into view, with its group's header when it heads a group."""
        model = self.model()
        above = model.index(index.row() - 1, 0) if model is not None else QModelIndex()
        if above.isValid() and above.data(HeaderRole):
            self.scrollTo(above)
        self.scrollTo(index)

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
            self._scroll_to(self.currentIndex())

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

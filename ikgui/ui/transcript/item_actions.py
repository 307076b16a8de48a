"""Where the transcript's action rows go (see :mod:`ikgui.ui.transcript.action_row`).

One row follows the message under the mouse, or — while the transcript or one of the
row's buttons has keyboard focus — the message at the text cursor (else the last one in
view), so Tab from the transcript reaches its buttons. Each error card in view has its
own row, always shown. Rows sit in the room under each message's frame (its bottom margin
is ``ACTION_ROOM``) and follow scrolling, resizing and the document's growth; the inline
editor (:mod:`ikgui.ui.transcript.inline_edit`) is placed at the same time.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, QTimer
from PySide6.QtGui import QMouseEvent, QTextFrame
from PySide6.QtWidgets import QApplication, QWidget

from ikgui.domain.events import Kind
from ikgui.domain.text.advice import settings_page
from ikgui.ui.transcript.action_row import ActionRow, actions_for, always_shown
from ikgui.ui.transcript.inline_edit import InlineEdits, bubble_rect
from ikgui.ui.transcript.switcher import AlternativeSwitcher

if TYPE_CHECKING:
    from ikgui.ui.transcript.render import Item
    from ikgui.ui.transcript.scrollback import ScrollbackView

#: Pixels between a message's frame and its row.
_GAP = 2


class ItemActions(QObject):
    """The hover/focus row, the error cards' rows and the inline editor of one view."""

    def __init__(self, view: ScrollbackView) -> None:
        super().__init__(view)
        self.view = view
        self.row = ActionRow(view.viewport(), "actionRow")
        self.row.triggered.connect(self.trigger)
        self.cards: dict[int, ActionRow] = {}
        #: The ``‹ 2/3 ›`` of each item in view that has alternatives, by its event id.
        self.switchers: dict[int, AlternativeSwitcher] = {}
        self.edits = InlineEdits(view)
        self._hover: int | None = None
        self._pending = False
        #: Whether something is laid over an item (a tool call's approval card): no row.
        self.covers: Callable[[int], bool] = lambda event_id: False
        view.viewport().installEventFilter(self)
        view.installEventFilter(self)
        self.row.focus_moved.connect(self.schedule)
        view.verticalScrollBar().valueChanged.connect(self.schedule)
        view.document().documentLayout().documentSizeChanged.connect(self.schedule)
        view.cursorPositionChanged.connect(self.schedule)

    # -- what asks for a new placement --------------------------------------------------
    def schedule(self) -> None:
        """Place the rows once the current burst of changes is over (a streaming reply
        changes the document at every delta: the rows move once per turn of the loop)."""
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self.place)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self.view:
            if kind in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
                self.schedule()
        elif kind == QEvent.Type.MouseMove and isinstance(event, QMouseEvent):
            self._hover = self._row_item_at(event.position().toPoint())
            self.place()
        elif kind == QEvent.Type.Leave:
            self._hover = None
            self.place()
        elif kind == QEvent.Type.Resize:
            self.schedule()
        return False

    # -- placing --------------------------------------------------------------------------
    def place(self) -> None:
        """Put every row (and the inline editor) where its item is now."""
        self._pending = False
        view = self.view
        if not view.isVisible():
            return
        self.edits.place()
        self._place_switchers()
        target = self._target()
        item = view._by_id.get(target) if target is not None else None
        if (
            item is None
            or target == self.edits.editing_id
            or always_shown(item.event)
            or self.covers(item.event.id)
        ):
            self._hide_row()
        else:
            self.row.set_event(item.event)
            self._put(self.row, item)
        self._place_cards()

    def _hide_row(self) -> None:
        if self.row.isVisible():
            focused = self._in_row(QApplication.focusWidget())
            self.row.hide()
            if focused:
                self.view.setFocus()

    def _target(self) -> int | None:
        """The item the row is for: the focused button's, the hovered, the focused one."""
        focus = QApplication.focusWidget()
        if self.row.isVisible() and self._in_row(focus):
            return self.row.event_id
        if self._hover is not None:
            return self._hover
        if focus is self.view:
            return self._focused_item()
        return None

    def _in_row(self, widget: QWidget | None) -> bool:
        return widget is not None and self.row.isAncestorOf(widget)

    def _focused_item(self) -> int | None:
        """The message at the text cursor if it is in view, else the last one in view."""
        view = self.view
        items = self._visible()
        frame: QTextFrame | None = view.textCursor().currentFrame()
        at_cursor = view.event_id_of(frame)
        shown = [i for i in items if actions_for(i.event)]
        if at_cursor is not None and any(i.event.id == at_cursor for i in shown):
            return at_cursor
        return shown[-1].event.id if shown else None

    def _place_cards(self) -> None:
        wanted = [item for item in self._visible() if always_shown(item.event)]
        ids = {item.event.id for item in wanted}
        for event_id in list(self.cards):
            if event_id not in ids:
                self.cards.pop(event_id).deleteLater()
        for item in wanted:
            card = self.cards.get(item.event.id)
            if card is None:
                card = self.cards[item.event.id] = ActionRow(self.view.viewport(), "errorActions")
                card.triggered.connect(self.trigger)
            card.set_event(item.event)
            self._put(card, item)

    def _place_switchers(self) -> None:
        """A switcher under each item in view with alternatives. They are kept by the
        turn (its slot), not the item: the switcher that was used stays, with the
        keyboard, when the item it was under gives way to another version."""
        found = self.view.alternatives()
        wanted = {
            found[item.event.id].slot_event_id: item
            for item in self._visible()
            if item.event.id in found
        }
        for slot in list(self.switchers):
            if slot not in wanted:
                gone = self.switchers.pop(slot)
                if gone.hasFocus():
                    self.view.setFocus()
                gone.deleteLater()
        for slot, item in wanted.items():
            switcher = self.switchers.get(slot)
            if switcher is None:
                switcher = AlternativeSwitcher(self.view.viewport())
                switcher.switched.connect(self.view.alternative_requested)
                self.switchers[slot] = switcher
            switcher.set_alternatives(item.event.id, found[item.event.id])
            self._put(switcher, item, beside=None)

    def switcher_for_keyboard(self) -> AlternativeSwitcher | None:
        """The switcher of the message that has the keyboard, else the last one in view."""
        focused = self.view.keys.focused
        if focused is not None:
            own = self.switcher_of(focused)
            if own is not None and own.isVisible():
                return own
        shown = [s for s in self.switchers.values() if s.isVisible()]
        return max(shown, key=lambda s: s.y()) if shown else None

    def switcher_of(self, event_id: int) -> AlternativeSwitcher | None:
        found = self.view.alternatives().get(event_id)
        return self.switchers.get(found.slot_event_id) if found is not None else None

    def _put(self, row: QWidget, item: Item, beside: int | None = 0) -> None:
        """Put ``row`` under ``item``: on the side its bubble is on, after the item's
        switcher (``beside=None``: the switcher itself)."""
        box = bubble_rect(self.view, item.frame)
        y = round(box.bottom()) + _GAP
        right = item.event.kind == Kind.USER
        x = round(box.right()) - row.width() if right else round(box.left())
        switcher = self.switcher_of(item.event.id) if beside is not None else None
        if switcher is not None:
            x += -(switcher.width() + 6) if right else switcher.width() + 6
        row.move(x, y)
        row.show()
        row.raise_()

    # -- geometry -------------------------------------------------------------------------
    def _index_at(self, y: float) -> int:
        """The index of the loaded item whose frame (with margins) starts at or above
        document height ``y`` (-1: above the first)."""
        items = self.view._items
        layout = self.view.document().documentLayout()
        return bisect_right(items, y, key=lambda i: layout.frameBoundingRect(i.frame).top()) - 1

    def _visible(self) -> list[Item]:
        view = self.view
        top = view.verticalScrollBar().value()
        first = max(0, self._index_at(top))
        last = self._index_at(top + view.viewport().height())
        return view._items[first : last + 1]

    def _row_item_at(self, point: QPoint) -> int | None:
        """The message with a row whose frame (its row's room included) is at ``point``."""
        view = self.view
        y = point.y() + view.verticalScrollBar().value()
        index = self._index_at(y)
        if index < 0:
            return None
        item = view._items[index]
        rect = view.document().documentLayout().frameBoundingRect(item.frame)
        if y > rect.bottom() or not actions_for(item.event):
            return None
        return item.event.id

    # -- what the buttons do --------------------------------------------------------------
    def trigger(self, key: str, event_id: int | None) -> None:
        view = self.view
        if event_id is None or event_id not in view._by_id:
            return
        if key == "copy":
            view._copy_item(event_id)
        elif key == "edit":
            self.edits.start(event_id)
        elif key == "retry":
            view.retry_requested.emit(event_id)
        elif key == "fork":
            view.fork_requested.emit(event_id)
        elif key == "settings":
            view.settings_requested.emit(settings_page(view._by_id[event_id].event.data) or "")

"""The transcript by keyboard (issue 13, item 1): one message at a time has the keyboard.

Up and Down (in the transcript; Alt+Up and Alt+Down from the prompt editor) move the
keyboard from message to message; the focused one wears a focus ring (its frame's border
in the highlight colour) and its action row shows under it, as on hover. Enter, the Menu
key or Shift+F10 open its actions (Copy, Edit and resend, Retry, Fork from here) as a menu
the arrows walk (Enter on a link Tab reached, which selects it, follows the link); Escape
lets go of the message. The ring goes when the keyboard leaves the transcript (not for
the menu or the message's own buttons).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QKeyEvent, QTextCursor, QTextFormat, QTextFrameFormat
from PySide6.QtWidgets import QApplication, QMenu

from ikgui.ui.transcript.action_row import actions_for
from ikgui.ui.transcript.inline_edit import bubble_rect

if TYPE_CHECKING:
    from ikgui.ui.transcript.scrollback import ScrollbackView

#: The ring's width in pixels (the frame's padding shrinks by as much: nothing moves).
RING = 2
#: A frame format property marking the ring.
_RING_PROPERTY = QTextFormat.Property.UserProperty + 60
_OPEN_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Menu)


class TranscriptKeys(QObject):
    """Which message has the keyboard (``focused``: its event id) and its focus ring."""

    def __init__(self, view: ScrollbackView) -> None:
        super().__init__(view)
        self.view = view
        self.focused: int | None = None
        #: The focused frame's own format, put back when the ring goes.
        self._saved: QTextFrameFormat | None = None
        self._ringed: int | None = None
        view.installEventFilter(self)
        self._pending = False
        view.document().documentLayout().documentSizeChanged.connect(self._schedule_ring)

    # -- which message ------------------------------------------------------------------
    def messages(self) -> list[int]:
        """The loaded messages that have actions, in order (the ones a key can focus)."""
        return [item.event.id for item in self.view._items if actions_for(item.event)]

    def step(self, delta: int) -> bool:
        """Focus the message ``delta`` places from the focused one (none focused: the last
        one going up, the first going down); the keyboard goes to the transcript."""
        ids = self.messages()
        if not ids:
            return False
        if self.focused in ids:
            index = max(0, min(len(ids) - 1, ids.index(self.focused) + delta))
        else:
            index = len(ids) - 1 if delta < 0 else 0
        return self.focus_item(ids[index])

    def focus_item(self, event_id: int) -> bool:
        """Give one message the keyboard: ringed, in view, its action row shown."""
        view = self.view
        item = view._by_id.get(event_id)
        if item is None:
            return False
        self.focused = event_id
        cursor = QTextCursor(view.document())
        cursor.setPosition(item.frame.firstPosition())
        view.setTextCursor(cursor)
        view.setFocus(Qt.FocusReason.OtherFocusReason)
        self._ring()
        view.ensureCursorVisible()
        layout = view.document().documentLayout()
        box = layout.frameBoundingRect(item.frame)
        bar = view.verticalScrollBar()
        bottom = round(box.bottom()) - view.viewport().height()
        if bar.value() < bottom:  # the whole message, if it fits; its top otherwise
            bar.setValue(min(bottom, round(box.top())))
        view.item_actions.schedule()
        return True

    def release(self) -> None:
        """No message has the keyboard any more."""
        self.focused = None
        self._unring()

    # -- the menu -----------------------------------------------------------------------
    def open_actions(self) -> QMenu | None:
        """The focused message's actions, as a menu under its top left corner."""
        view = self.view
        if self.focused is None or self.focused not in view._by_id:
            return None
        menu = view.menu_for(self.focused)
        menu.aboutToHide.connect(menu.deleteLater)
        box = bubble_rect(view, view._by_id[self.focused].frame)
        corner = QPoint(round(box.left()) + 12, max(0, round(box.top())) + 12)
        menu.popup(view.viewport().mapToGlobal(corner))
        first = next((a for a in menu.actions() if a.isEnabled() and not a.isSeparator()), None)
        if first is not None:
            menu.setActiveAction(first)
        return menu

    # -- keys -----------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._key(event)
        if kind == QEvent.Type.ContextMenu and isinstance(event, QContextMenuEvent):
            keyboard = event.reason() == QContextMenuEvent.Reason.Keyboard
            return keyboard and self.open_actions() is not None
        if kind == QEvent.Type.FocusOut:
            QTimer.singleShot(0, self, self._maybe_unring)
        elif kind == QEvent.Type.FocusIn and self.focused is not None:
            self._ring()
        return False

    def _key(self, event: QKeyEvent) -> bool:
        key, mods = event.key(), event.modifiers()
        plain = mods in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.AltModifier)
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and plain:
            return self.step(-1 if key == Qt.Key.Key_Up else 1)
        shift_f10 = key == Qt.Key.Key_F10 and mods == Qt.KeyboardModifier.ShiftModifier
        on_link = key != Qt.Key.Key_Menu and self.view.textCursor().hasSelection()
        opens = key in _OPEN_KEYS and mods == Qt.KeyboardModifier.NoModifier and not on_link
        if opens or shift_f10:
            return self.open_actions() is not None
        if key == Qt.Key.Key_Escape and self.focused is not None:
            self.release()
            return True
        return False

    # -- the ring ------------------------------------------------------------------------
    def _ring(self) -> None:
        item = self.view._by_id.get(self.focused) if self.focused is not None else None
        if item is None:
            return
        if self._ringed != self.focused:
            self._unring()
        fmt = item.frame.frameFormat()
        if fmt.property(_RING_PROPERTY):
            return
        self._saved = QTextFrameFormat(fmt)
        self._ringed = self.focused
        padding = max(0.0, fmt.padding() - (RING - fmt.border()))
        fmt.setBorder(RING)
        fmt.setPadding(padding)
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setBorderBrush(self.view.palette().highlight())
        fmt.setProperty(_RING_PROPERTY, True)
        item.frame.setFrameFormat(fmt)

    def _unring(self) -> None:
        ringed, saved = self._ringed, self._saved
        self._ringed = self._saved = None
        item = self.view._by_id.get(ringed) if ringed is not None else None
        if (
            item is not None
            and saved is not None
            and item.frame.frameFormat().property(_RING_PROPERTY)
        ):
            item.frame.setFrameFormat(saved)

    def ringed(self) -> int | None:
        """The message wearing the focus ring (tests; ``None``: none)."""
        item = self.view._by_id.get(self._ringed) if self._ringed is not None else None
        if item is None or not item.frame.frameFormat().property(_RING_PROPERTY):
            return None
        return self._ringed

    def _schedule_ring(self) -> None:
        """After the current change (the document is mid-edit while its size changes)."""
        if not self._pending and self.focused is not None:
            self._pending = True
            QTimer.singleShot(0, self, self._keep_ring)

    def _keep_ring(self) -> None:
        """A re-rendered message gets a new frame: put the ring back on it."""
        self._pending = False
        if self.focused is None or not self.view.hasFocus():
            return
        item = self.view._by_id.get(self.focused)
        if item is None:
            self.release()
        elif not item.frame.frameFormat().property(_RING_PROPERTY):
            self._ringed = self._saved = None
            self._ring()

    def _maybe_unring(self) -> None:
        """The keyboard left: keep the ring for the message's menu and buttons only."""
        focus = QApplication.focusWidget()
        view = self.view
        inside = focus is not None and (focus is view or view.isAncestorOf(focus))
        if not inside and QApplication.activePopupWidget() is None:
            self._unring()

"""The scrollback: the replayed transcript of one conversation in a single read-only
``QTextBrowser`` document, one ``QTextFrame`` per item.

One document keeps plain selection and Ctrl+C working across items. Only the last page of
a long transcript is laid out; earlier pages are inserted above when the user scrolls to
the top. A streaming reply grows by inserting at the end of its frame, its finished
Markdown blocks rendered as they complete; when it ends only the rest is rendered. Every
item keeps to the render budget of :mod:`ikgui.ui.transcript.render_budget`; what it
leaves out opens in a viewer of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QMimeData, Qt, QUrl, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QResizeEvent,
    QShowEvent,
    QTextCursor,
    QTextFrame,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from ikgui.domain.errors import IkguiError
from ikgui.domain.events import Event, Kind
from ikgui.domain.state.alternatives import Alternatives
from ikgui.domain.state.reading import shown
from ikgui.domain.state.transcript import Entry, Group
from ikgui.ui.transcript.files import MessageFiles
from ikgui.ui.transcript.groups import GroupsMixin, group_link
from ikgui.ui.transcript.grown import grow
from ikgui.ui.transcript.highlight import LateHighlighter
from ikgui.ui.transcript.item_actions import ItemActions
from ikgui.ui.transcript.items import Colors
from ikgui.ui.transcript.keyboard import TranscriptKeys
from ikgui.ui.transcript.markdown import SafeDocument
from ikgui.ui.transcript.menu import MenuMixin
from ikgui.ui.transcript.reading_column import ColumnMixin, body_font
from ikgui.ui.transcript.render import Item, ItemWriter
from ikgui.ui.transcript.selection import fragment_text
from ikgui.ui.transcript.start import FIRST_SCREEN as FIRST_SCREEN
from ikgui.ui.transcript.start import PAGE_SIZE, StartMixin

if TYPE_CHECKING:
    from ikgui.ui.transcript.branch_notices import TitleLookup

#: At most this many items are in the document: Qt keeps a frame's children in a list,
#: so inserting above thousands of frames gets slow; pages far off-screen are dropped.
MAX_LOADED = 6 * PAGE_SIZE
_KEEP = QTextCursor.MoveMode.KeepAnchor


class ScrollbackView(GroupsMixin, StartMixin, MenuMixin, ColumnMixin, QTextBrowser):
    """The transcript of the conversation on screen (objectName ``scrollback``)."""

    fork_requested = Signal(object)  # event ids: provisional ones exceed 32 bits
    edit_resend_requested = Signal(object, str)  # (message id, edited text): a new branch
    retry_requested = Signal(object)
    prompt_restore_requested = Signal(object, str)  # a prompt card: its event, its text
    text_size_changed = Signal(int)  # the body text's size, in percent
    settings_requested = Signal(str)  # an error card's "Open … settings": the page
    #: A notice's link: ``(scheme, conversation id)`` (open it, or its Branches view).
    conversation_link = Signal(str, str)
    #: A switcher asked for another version of a turn: ``(Alternatives, index)``.
    alternative_requested = Signal(object, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        self._held: list[Event] = []
        #: ``self._held[self._first:self._last]`` are the items in the document.
        self._first = 0
        self._last = 0
        self._items: list[Item] = []
        self._by_id: dict[int, Item] = {}
        self._loading = False
        self._ready = False
        #: Groups by key, the keys shown expanded, and the group each expanded row is in.
        self._groups: dict[int, Group] = {}
        self._expanded: set[int] = set()
        self._owner: dict[int, int] = {}
        #: Reads a cleared group's items when it is expanded (set by the window).
        self.group_loader: Callable[[Group], list[Entry]] | None = None
        #: Appending what another process wrote: a message does not move the view.
        self.quiet = False
        #: Which shown items have alternatives (SPEC §14), by event id: asked of the
        #: window once the transcript changed, when the switchers are next placed.
        self.alternatives_source: Callable[[], dict[int, Alternatives]] = dict
        self._alternatives: dict[int, Alternatives] | None = None
        super().__init__(parent)
        self.setObjectName("scrollback")
        self.setAccessibleName("Transcript")
        document = SafeDocument(self)
        document.setUndoRedoEnabled(False)
        document.setDocumentMargin(14)
        self.setDocument(document)
        #: The messages' files: thumbnails loaded as they scroll into view, and clicks.
        self.files = MessageFiles(document, self)
        document.pictures = self.files.resource
        self.setFont(body_font(self.text_size))
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._on_link)
        self.verticalScrollBar().valueChanged.connect(self._scrolled)
        self._writer = ItemWriter(document, Colors.from_palette(self.palette()), self.font())
        self._writer.late = LateHighlighter(document, self)
        self._writer.alive = lambda item: self._by_id.get(item.event.id) is item
        self.item_actions = ItemActions(self)
        self.keys = TranscriptKeys(self)  # a message at a time by keyboard, its ring
        self._ready = True

    # -- the API the window drives ---------------------------------------------------
    def set_titles(self, titles: TitleLookup) -> None:
        """How fork and close notices find a conversation's title (the store's)."""
        self._writer.titles = titles

    def set_interrupted(self, interrupted: Callable[[Event], bool]) -> None:
        """How a tool call is known to have no result and no loop left to give it one
        (ikgui stopped before it ran or ended): it says so."""
        self._writer.interrupted = interrupted

    def alternatives(self) -> dict[int, Alternatives]:
        """The items with alternatives (read again after each change of the transcript)."""
        if self._alternatives is None:
            try:
                self._alternatives = self.alternatives_source()
            except IkguiError:  # (a store that cannot be read: its banner says so)
                self._alternatives = {}
        return self._alternatives

    def alternatives_changed(self) -> None:
        """What has alternatives may have changed: ask again when placing the switchers."""
        self._alternatives = None
        if self._ready:
            self.item_actions.schedule()

    def show_events(self, entries: Sequence[Entry]) -> None:
        """Replace everything: show the last page of the transcript ``entries`` (events
        and collapsed groups: ``ReplayState.transcript``) at the bottom."""
        self.alternatives_changed()
        self._held = self._rows(entries)
        self._last = len(self._held)
        self._first = self._first_of_page()
        self._rebuild()
        self.scroll_to_bottom()
        self._fill_in_steps()

    def append_event(self, event: Event) -> None:
        """Add one item at the end (see ``apply_change`` for what the domain changed)."""
        if not shown(event):
            return
        if event.id in self._by_id:
            self.update_event(event)
            return
        self.alternatives_changed()
        at_end = self._last == len(self._held)
        sent = event.kind == Kind.USER and not self.quiet
        follow = self._at_bottom() or sent
        self._held.append(event)
        if not at_end:  # the user is reading far back: show it when they get there...
            if sent:  # ...unless they just sent it
                self.show_events(self._held)
            return
        self._items.append(self._insert(self._writer.end_position(), event))
        self._last += 1
        if follow:
            self.scroll_to_bottom()

    def update_event(self, event: Event) -> None:
        """An item changed; a finished reply gets the rest of its Markdown here.

        While ``data["streaming"]`` is true the text comes from :meth:`append_text` and
        the event's (periodically saved) content is not shown again. An assistant event
        with no content and ``data["failed"]`` is removed.
        """
        if not shown(event):
            self.remove_event(event.id)
            return
        index = self._held_index(event.id)
        if index is not None:
            self._held[index] = event
        item = self._by_id.get(event.id)
        if item is None:
            return
        item.event = event
        if event.data.get("streaming") and item.parts is not None and grow(self, item):
            return  # (saved here: its text is shown already; elsewhere: the rest added)
        follow = self._at_bottom()
        if self._writer.finish(item, event):  # only its unrendered end is rendered
            if follow:
                self.scroll_to_bottom()
            return
        position = self._items.index(item)
        del self._by_id[event.id]
        self._items[position] = self._insert(self._writer.remove(item), event)
        if follow:
            self.scroll_to_bottom()

    def append_text(self, event_id: int, text: str) -> None:
        """Streaming: add ``text`` to the end of that item, without re-rendering."""
        item = self._by_id.get(event_id)
        if item is None or not text:
            return
        follow = self._at_bottom()
        self._writer.append(item, text)
        if follow:
            self.scroll_to_bottom()

    def remove_event(self, event_id: int) -> None:
        index = self._held_index(event_id)
        if index is not None:
            del self._held[index]
            self._first -= index < self._first
            self._last -= index < self._last
        item = self._by_id.pop(event_id, None)
        if item is not None:
            self._items.remove(item)
            self._writer.remove(item)

    def set_text_size(self, percent: int) -> None:
        """The body text at ``percent`` (Ctrl+= / Ctrl+-, Settings); said to whatever
        shows text beside the transcript (the working prompt)."""
        ColumnMixin.set_text_size(self, percent)
        self.text_size_changed.emit(percent)

    def set_prompt_lookup(
        self,
        before: Callable[[int], str | None],
        current: Callable[[], str | None] = lambda: None,
        panel_open: Callable[[], bool] = lambda: True,
    ) -> None:
        """Where the prompt cards find the prompt an event changed, the one in force and
        whether the working-prompt panel shows it (the window's state)."""
        writer = self._writer
        writer.prompt_before, writer.current_prompt = before, current
        writer.prompt_panel_open = panel_open

    def refresh_prompt_cards(self) -> None:
        """The working prompt or its panel may have changed: redraw the cards whose look
        follows them (the version in force has no "Restore this version"; with the panel
        collapsed, cards show what changed)."""
        writer = self._writer
        for item in list(self._items):
            drawn = writer.cards.get(item.event.id)
            if drawn is None or item.parts is not None:
                continue
            if drawn != writer.card_state(item.event.id, item.event.data.get("prompt")):
                self.update_event(item.event)

    def item_texts(self) -> list[str]:
        """The plain text of every item in the document, in order."""
        return [self._writer.text_of(item) for item in self._items]

    def item_kinds(self) -> list[str]:
        return [item.event.kind for item in self._items]

    def item_frame(self, event_id: int) -> QTextFrame | None:
        """The frame showing an event (its format carries the role), if it is loaded."""
        item = self._by_id.get(event_id)
        return item.frame if item is not None else None

    def has_earlier(self) -> bool:
        return self._first > 0

    def has_later(self) -> bool:
        return self._last < len(self._held)

    def load_earlier(self, count: int = PAGE_SIZE) -> int:
        """Insert up to ``count`` earlier items above, keeping the visible text in place."""
        if self._first == 0 or self._loading:
            return 0
        self._loading = True
        try:
            bar = self.verticalScrollBar()
            layout = self.document().documentLayout()
            anchor = self._items[0] if self._items else None
            before = layout.frameBoundingRect(anchor.frame).top() if anchor else 0.0
            start = max(0, self._first - count)
            added = self._insert_rows(0, self._held[start : self._first])
            self._items[0:0] = added
            self._first = start
            self._sync_scroll_range()
            if anchor is not None:
                shift = layout.frameBoundingRect(anchor.frame).top() - before
                bar.setValue(bar.value() + round(shift))
            excess = len(self._items) - max(MAX_LOADED, len(added) + PAGE_SIZE)
            if excess > 0:  # drop pages far below (they come back on scrolling down)
                self._drop(len(self._items) - excess, len(self._items))
                self._last -= excess
                self._sync_scroll_range()
            return len(added)
        finally:
            self._loading = False

    def load_later(self, count: int = PAGE_SIZE) -> int:
        """Append up to ``count`` of the items dropped below, keeping the view in place."""
        if not self.has_later() or self._loading:
            return 0
        self._loading = True
        try:
            stop = min(len(self._held), self._last + count)
            added = self._insert_rows(self._writer.end_position(), self._held[self._last : stop])
            self._items.extend(added)
            self._last = stop
            excess = len(self._items) - MAX_LOADED
            if excess > 0:
                bar = self.verticalScrollBar()
                layout = self.document().documentLayout()
                kept = self._items[excess]
                before = layout.frameBoundingRect(kept.frame).top()
                self._drop(0, excess)
                self._first += excess
                self._sync_scroll_range()
                shift = before - layout.frameBoundingRect(kept.frame).top()
                bar.setValue(bar.value() - round(shift))
            self._sync_scroll_range()
            return len(added)
        finally:
            self._loading = False

    def scroll_to_event(self, event_id: int) -> bool:
        """Show an event at the top of the view, selected (loading its page first, and
        expanding the group it is in)."""
        index = self._held_index(event_id) if self.reveal(event_id) else None
        if index is None:
            return False
        if self._first - 2 * PAGE_SIZE <= index < self._first:
            self.load_earlier(self._first - index + 20)
        elif not self._first <= index < self._last:
            self._first = max(0, index - 20)
            self._last = min(len(self._held), self._first + PAGE_SIZE)
            self._rebuild()
        item = self._by_id.get(event_id)
        if item is None:
            return False
        self._sync_scroll_range()
        top = self.document().documentLayout().frameBoundingRect(item.frame).top()
        cursor = QTextCursor(self.document())
        cursor.setPosition(self._writer.body_start(item))
        cursor.setPosition(item.frame.lastPosition(), _KEEP)
        self.setTextCursor(cursor)
        self.verticalScrollBar().setValue(max(0, round(top) - 8))
        return True

    def scroll_to_bottom(self) -> None:
        """The end of the transcript (rebuilding the last page if the user was far up)."""
        if self.has_later():
            self._first = max(0, len(self._held) - PAGE_SIZE)
            self._last = len(self._held)
            self._rebuild()
        if not self.isVisible():  # laid out once shown, at its real width
            self._bottom_when_shown = True
            return
        self._sync_scroll_range()
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def resizeEvent(self, event: QResizeEvent) -> None:
        # The column first, so that Qt lays the document out once for the new width.
        follow = self.isVisible() and self._at_bottom()  # a resize keeps the end in view
        self.apply_column(event.size().width() - (self.width() - self.viewport().width()))
        super().resizeEvent(event)
        if follow:
            self.scroll_to_bottom()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._shown()
        self.item_actions.schedule()

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab from the transcript stops at the ``‹ 2/3 ›`` of the message that has the
        keyboard (or the last one in view) before it leaves the transcript."""
        if next and self.hasFocus():
            switcher = self.item_actions.switcher_for_keyboard()
            if switcher is not None:
                switcher.setFocus(Qt.FocusReason.TabFocusReason)
                return True
        return super().focusNextPrevChild(next)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        event_id = self.event_id_at(event.pos())
        if event_id is None:
            super().contextMenuEvent(event)
            return
        menu = self.menu_for(event_id)
        menu.aboutToHide.connect(menu.deleteLater)
        menu.popup(event.globalPos())

    def createMimeDataFromSelection(self) -> QMimeData:
        """Copy: tables as tab-separated rows, code without its header line."""
        mime = super().createMimeDataFromSelection()  # (Qt's: the clipboard owns it)
        mime.text()  # Qt fills its formats in when first read, then leaves them alone
        mime.setText(fragment_text(self.textCursor().selection()))
        return mime

    def loadResource(self, type: int, name: QUrl | str) -> object:
        return None  # nothing is ever fetched: not the network, not files

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and self.font() != body_font(self.text_size):
            # A restyle (a theme change) gives the font of the first style sheet's polish
            # back: the text keeps the size the user chose.
            self.setFont(body_font(self.text_size))
            return
        if self._ready and event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            colors, font = Colors.from_palette(self.palette()), self.font()
            if colors == self._writer.colors and font == self._writer.font:
                return  # showing the window sends palette events that change nothing
            self._writer.colors = colors
            self._writer.font = font
            self.files.restyled()
            follow, value = self._at_bottom(), self.verticalScrollBar().value()
            self._rebuild()
            if follow:
                self.scroll_to_bottom()
            else:
                self.verticalScrollBar().setValue(value)

    def _on_link(self, url: QUrl) -> None:
        key = group_link(url)
        if key is not None:
            self.toggle_group(key)
        else:
            self._open_link(url)

    def _event(self, event_id: int) -> Event:
        return self._by_id[event_id].event

    # -- the document ------------------------------------------------------------------
    def _rebuild(self) -> None:
        self.document().clear()
        self.apply_column()  # (clear() resets the margins)
        self._writer.style_gap(0)
        self._items = []
        self._by_id = {}
        self._items = self._insert_rows(0, self._held[self._first : self._last])

    def _drop(self, start: int, stop: int) -> None:
        """Take items ``start:stop`` of the loaded ones out of the document."""
        dropped = self._items[start:stop]
        self._writer.remove(dropped[0], dropped[-1])
        for item in dropped:
            del self._by_id[item.event.id]
        del self._items[start:stop]

    def _held_index(self, event_id: int) -> int | None:
        for index in range(len(self._held) - 1, -1, -1):
            if self._held[index].id == event_id:
                return index
        return None

    def sync_scroll_range(self) -> None:
        """Size the scroll bar to the document now (after something laid over an item
        changed the room it keeps)."""
        self._sync_scroll_range()

    def _sync_scroll_range(self) -> None:
        """Lay out now and size the scroll bar to it (QTextEdit would do so only later)."""
        height = self.document().documentLayout().documentSize().height()
        bar = self.verticalScrollBar()
        bar.setRange(0, max(0, round(height) - self.viewport().height()))

    def _at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 8 and not self.has_later()

    def _scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        if self._loading or bar.maximum() == 0:
            return
        if value <= bar.minimum() and self._first > 0:
            self.load_earlier()
        elif value >= bar.maximum() and self.has_later():
            self.load_later()

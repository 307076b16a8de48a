"""How the transcript starts (a mixin of :class:`ikgui.ui.transcript.scrollback.ScrollbackView`): it
is laid out once shown, at its real width, scrolled to the end; and until the window's
first paint only about a screenful of it is there, the rest of the last page being added
above right after that paint."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QScrollBar

from ikgui.domain.events import Event
from ikgui.domain.state.transcript import Entry
from ikgui.ui.first_paint import FirstPaint

if TYPE_CHECKING:
    from ikgui.ui.transcript.render import Item, ItemWriter

PAGE_SIZE = 150
#: Items laid out before the window's first paint: enough to fill a screen (more are
#: added if they do not).
FIRST_SCREEN = 15
#: With ``fill_in_steps``, the rest of a page is added above this many items at a time.
FILL_STEP = 15


class _View(Protocol):
    _held: list[Event]
    _first: int
    _last: int
    _page: int
    _bottom_when_shown: bool
    _writer: ItemWriter
    _items: list[Item]
    fill_in_steps: bool
    filling: bool
    _fill_turn: int

    def has_later(self) -> bool: ...
    def load_earlier(self, count: int = PAGE_SIZE) -> int: ...
    def scroll_to_bottom(self) -> None: ...
    def verticalScrollBar(self) -> QScrollBar: ...
    def _fill_page(self) -> None: ...
    def _highlight_code(self) -> None: ...
    def document(self) -> QTextDocument: ...
    def _rows(self, entries: Sequence[Entry]) -> list[Event]: ...


class StartMixin:
    #: How many items ``show_events`` lays out (fewer before the first paint).
    _page = PAGE_SIZE
    #: Scrolled to the bottom once shown (the layout waits for the real width).
    _bottom_when_shown = False
    #: Whether ``show_events`` lays out a screenful, and the rest of the page above it in
    #: steps once that is painted (the window: a switch to a long conversation paints
    #: sooner, and no step holds its event loop long).
    fill_in_steps = False
    _fill_turn = 0
    #: Whether steps of ``fill_in_steps`` are still to come.
    filling = False

    def _first_of_page(self: _View) -> int:
        """Where the items ``show_events`` lays out now begin."""
        stepping = self.fill_in_steps and self._page == PAGE_SIZE
        return max(0, self._last - (FIRST_SCREEN if stepping else self._page))

    def _fill_in_steps(self: _View) -> None:
        """After ``show_events``: the rest of the page in steps (any earlier steps stop)."""
        self._fill_turn += 1
        self.filling = self.fill_in_steps and self._page == PAGE_SIZE
        if self.filling:
            QTimer.singleShot(0, self, partial(StartMixin._fill_step, self, self._fill_turn))  # type: ignore[call-overload]

    def _fill_step(self: _View, turn: int) -> None:
        if turn != self._fill_turn:
            return  # shown again since
        missing = PAGE_SIZE - (self._last - self._first)
        if missing > 0 and not self.has_later() and self.load_earlier(min(FILL_STEP, missing)):
            QTimer.singleShot(0, self, partial(StartMixin._fill_step, self, turn))  # type: ignore[call-overload]
        else:
            self.filling = False

    def first_screen_until(self: _View, first_paint: FirstPaint) -> None:
        """Until ``first_paint``, ``show_events`` lays out about a screenful; the rest of
        the last page is added above right after it."""
        self._page = FIRST_SCREEN
        self._writer.body.highlight = False  # Pygments loads after the paint...
        first_paint.then(self._highlight_code)  # ...and colours the code shown so far
        first_paint.then(self._fill_page)

    def _highlight_code(self: _View) -> None:
        from ikgui.ui.transcript.highlight import highlight_frames, warm_up

        writer = self._writer
        writer.body.highlight = True
        warm_up(writer.colors.dark)
        for item in self._items:  # one batch each: the last item is coloured first
            frame = [(item.frame, partial(writer.alive, item))]
            if writer.late is not None:
                writer.late.add(highlight_frames(self.document(), frame, writer.colors.dark))

    def hold_earlier(self: _View, entries: Sequence[Entry]) -> bool:
        """The transcript shown turned out to be the end of ``entries`` (the domain's
        transcript): hold all of its rows (earlier pages load on scrolling up) and fill
        the last page, leaving the items on screen as they are. ``False`` (nothing done)
        if they end otherwise."""
        held = self._rows(entries)
        extra = len(held) - len(self._held)
        if extra < 0 or held[extra:] != self._held:
            return False
        self._held = held
        self._first += extra
        self._last += extra
        if self._page == PAGE_SIZE:  # (before the first paint, that fills it)
            self._fill_page()
        return True

    def _fill_page(self: _View) -> None:
        self._page = PAGE_SIZE
        missing = PAGE_SIZE - (self._last - self._first)
        if missing > 0 and self._first > 0 and not self.has_later():
            self.load_earlier(missing)

    def _shown(self: _View) -> None:
        """The view was shown: scroll to the end if that waited for it (and fill the
        view if the first screenful does not)."""
        if not self._bottom_when_shown:
            return
        self._bottom_when_shown = False
        self.scroll_to_bottom()
        while self._first > 0 and self.verticalScrollBar().maximum() == 0:
            if not self.load_earlier(FIRST_SCREEN):
                break
            self.scroll_to_bottom()

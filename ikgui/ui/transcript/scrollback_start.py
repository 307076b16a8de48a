"""How the transcript starts (a mixin of :class:`ikgui.ui.transcript.scrollback.ScrollbackView`): it
is laid out once shown, at its real width, scrolled to the end; and until the window's
first paint only about a screenful of it is there, the rest of the last page being added
above right after that paint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtWidgets import QScrollBar

from ikgui.domain.events import Event
from ikgui.domain.reading import visible
from ikgui.ui.first_paint import FirstPaint

PAGE_SIZE = 150
#: Items laid out before the window's first paint: enough to fill a screen (more are
#: added if they do not).
FIRST_SCREEN = 15


class _View(Protocol):
    _held: list[Event]
    _first: int
    _last: int
    _page: int
    _bottom_when_shown: bool

    def has_later(self) -> bool: ...
    def load_earlier(self, count: int = PAGE_SIZE) -> int: ...
    def scroll_to_bottom(self) -> None: ...
    def verticalScrollBar(self) -> QScrollBar: ...
    def _fill_page(self) -> None: ...


class StartMixin:
    #: How many items ``show_events`` lays out (fewer before the first paint).
    _page = PAGE_SIZE
    #: Scrolled to the bottom once shown (the layout waits for the real width).
    _bottom_when_shown = False

    def first_screen_until(self: _View, first_paint: FirstPaint) -> None:
        """Until ``first_paint``, ``show_events`` lays out about a screenful; the rest of
        the last page is added above right after it."""
        self._page = FIRST_SCREEN
        first_paint.then(self._fill_page)

    def hold_earlier(self: _View, events: Sequence[Event]) -> bool:
        """The transcript shown turned out to be the end of ``events``: hold all of them
        (earlier pages load on scrolling up) and fill the last page, leaving the items
        on screen as they are. ``False`` (nothing done) if ``events`` end otherwise."""
        held = visible(events)
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

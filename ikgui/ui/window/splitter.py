"""The window's splitter (sidebar | conversation | working prompt), whose least width is
the compact layout's (issue 13, item 3).

A plain ``QSplitter`` asks for the sum of its panels' least widths, the sidebar's
included; the main window's layout makes that the window's minimum. Styled, that sum
passes 800 px, so the window could not be made 800×600 (a resize, a restored geometry, a
tiling window manager's half screen): it stopped short, in the roomy layout, before
:mod:`ikgui.ui.window.responsive` could collapse the sidebar to its toggle. Below
``NARROW`` the sidebar is hidden anyway, so its width is left out of the minimum.

A panel narrower than the width the splitter keeps for it (the working prompt collapsed
to its toggle, whose maximum width is the toggle's) left the difference blank at the
window's edge (issue 20, item 13): that width goes to the conversation instead.

Likewise a stacked widget counts its hidden pages' least widths too: the first-run
welcome, once built, kept an open conversation at least 387 px wide, so with the sidebar
shown on demand at 800 px the panels were squeezed below what they need.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QSize
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QSizePolicy, QSplitter, QStackedWidget, QWidget

#: The panel that takes the width the others cannot (the conversation).
STRETCHED = 1


def least_width(widget: QWidget) -> int:
    """The width a layout gives ``widget`` at the least (Qt's ``qSmartMinSize``)."""
    if widget.sizePolicy().horizontalPolicy() == QSizePolicy.Policy.Ignored:
        return widget.minimumWidth()
    return widget.minimumWidth() or widget.minimumSizeHint().width()


class MainSplitter(QSplitter):
    """Its first panel (the sidebar) collapses to a toggle when room is short: its width
    is not part of the splitter's minimum."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        first = self.widget(0)
        if self.count() < 2 or first is None or first.isHidden():
            return hint
        collapsible = least_width(first) + self.handleWidth()
        return QSize(max(0, hint.width() - collapsible), hint.height())

    def fill(self) -> None:
        """Give the width kept for a panel beyond its maximum to the conversation."""
        sizes = self.sizes()
        if len(sizes) <= STRETCHED:
            return
        spare = 0
        for index, size in enumerate(sizes):
            panel = self.widget(index)
            if index == STRETCHED or panel is None or panel.isHidden():
                continue
            most = panel.maximumWidth()
            if size > most:
                spare += size - most
                sizes[index] = most
        if spare:
            sizes[STRETCHED] += spare
            self.setSizes(sizes)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # a panel's maximum changed
            self.fill()
        return handled

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.fill()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fill()

    def restoreState(self, state: QByteArray | bytes | bytearray | memoryview) -> bool:
        restored = super().restoreState(state)
        self.fill()
        return restored


def sized_by_current_page(stack: QStackedWidget) -> Callable[[], None]:
    """Only the page shown counts towards ``stack``'s least width (its hidden pages'
    widths are ignored). Returns the update to call after adding a page."""
    kept: dict[int, QSizePolicy.Policy] = {}

    def follow() -> None:
        for index in range(stack.count()):
            page = stack.widget(index)
            if page is None:
                continue
            own = kept.setdefault(id(page), page.sizePolicy().horizontalPolicy())
            policy = page.sizePolicy()
            shown = index == stack.currentIndex()
            policy.setHorizontalPolicy(own if shown else QSizePolicy.Policy.Ignored)
            page.setSizePolicy(policy)

    stack.currentChanged.connect(lambda _index: follow())
    return follow

"""The window's splitter (sidebar | conversation | working prompt), whose least width is
the compact layout's (issue 13, item 3).

A plain ``QSplitter`` asks for the sum of its panels' least widths, the sidebar's
included; the main window's layout makes that the window's minimum. Styled, that sum
passes 800 px, so the window could not be made 800×600 (a resize, a restored geometry, a
tiling window manager's half screen): it stopped short, in the roomy layout, before
:mod:`ikgui.ui.window.responsive` could collapse the sidebar to its toggle. Below
``NARROW`` the sidebar is hidden anyway, so its width is left out of the minimum.

Likewise a stacked widget counts its hidden pages' least widths too: the first-run
welcome, once built, kept an open conversation at least 387 px wide, so with the sidebar
shown on demand at 800 px the panels were squeezed below what they need.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QSizePolicy, QSplitter, QStackedWidget, QWidget


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

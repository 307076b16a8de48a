"""The toolbar's labels show exactly when they fit (issue 15, ODDS item 3): icon-only
below the compact width or when the labels would not fit, labelled otherwise — at
start-up (restored geometry), after the window was narrow, and after a theme or font
change that changes the labels' width, without waiting for another resize."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from ikgui.ui import style
from ikgui.ui.window.main_window import MainWindow
from ikgui.ui.window.responsive import NARROW
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import laid_out, wait_until
from tests.ui.test_access_sizes import clipped
from tests.ui.test_window import closed, opened, settle, window, write_config

__all__ = ["window", "wire_server", "wire_server_session"]

TEXT = Qt.ToolButtonStyle.ToolButtonTextBesideIcon
ICONS = Qt.ToolButtonStyle.ToolButtonIconOnly
SIZES = ((800, 600), (1100, 700), (1280, 800), (1366, 768))


def labelled_width(win: MainWindow) -> int:
    """The toolbar's width with its labels, measured here (not the window's figure)."""
    toolbar = win.toolbar_actions.toolbar
    before = toolbar.toolButtonStyle()
    toolbar.setToolButtonStyle(TEXT)
    width = toolbar.sizeHint().width()
    toolbar.setToolButtonStyle(before)
    return width


async def resized(win: MainWindow, width: int, height: int) -> int:
    """Resize to ``width`` or the window's least width if that is more (styled, the
    window needs a little over 800 pixels here: see the report); returns the width."""
    win.resize(width, height)
    expected = max(width, win.minimumSizeHint().width())
    await wait_until(lambda: win.width() == expected)
    await laid_out()  # the layouts below settle in posted events
    return expected


async def settled(win: MainWindow) -> None:
    """The window's own work done, and Qt's posted events and zero timers run."""
    await settle(win)
    await laid_out()


def assert_right_mode(win: MainWindow) -> None:
    shown = win.toolbar_actions.toolbar.toolButtonStyle()
    if win.width() < NARROW:
        assert shown == ICONS
    else:
        need = labelled_width(win)
        assert shown == (TEXT if need <= win.width() else ICONS), (win.width(), need)
    assert clipped(win) == []  # nothing cut off, nothing behind the overflow button


@pytest.fixture
def restore_style() -> Iterator[None]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    font, theme = QFont(app.font()), style.current_theme(app)
    yield
    app.setFont(font)
    style.apply_style(app, theme)


@pytest.mark.parametrize(("width", "height"), SIZES)
async def test_shown_at_its_restored_size_the_mode_is_right_from_the_start(
    tmp_path: Path, wire_server: WireServer, width: int, height: int
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    width = await resized(win, width, height)
    await closed(win)  # the geometry is saved...
    win = await opened(home)  # ...and restored at the next start
    try:
        assert win.width() == width
        assert_right_mode(win)
    finally:
        await closed(win)


async def test_after_the_compact_layout_labels_come_back_where_they_fit(
    window: MainWindow,
) -> None:
    await resized(window, 1366, 768)
    room = labelled_width(window) + 10  # just room for the labels
    for width, height in (*SIZES, (room, 768)):
        await resized(window, 800, 600)  # narrow first: icons only, a wider toggle shown
        await resized(window, width, height)
        assert_right_mode(window)


async def test_a_style_change_that_widens_the_labels_refits_without_a_resize(
    window: MainWindow, restore_style: None
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    await resized(window, labelled_width(window) + 4, 768)  # the labels just fit
    assert window.toolbar_actions.toolbar.toolButtonStyle() == TEXT
    # A look whose buttons take more room (a theme, a platform style, a larger font).
    app.setStyleSheet(app.styleSheet() + "\nQToolBar QToolButton { padding: 2px 14px; }")
    await settled(window)
    assert_right_mode(window)  # icons only now: no label cut off, nothing in the overflow
    assert window.toolbar_actions.toolbar.toolButtonStyle() == ICONS
    style.apply_style(app, style.current_theme(app))  # back: the labels fit again
    await settled(window)
    await resized(window, labelled_width(window) + 4, 768)
    assert_right_mode(window)


async def test_theme_and_font_changes_keep_the_mode_right(
    window: MainWindow, restore_style: None
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    changes = [
        lambda: style.apply_style(app, "dark"),
        lambda: style.apply_style(app, "light"),
        lambda: style.apply_style(app, "system"),
        lambda: app.setFont(QFont(app.font().family(), round(app.font().pointSizeF() * 1.4))),
        lambda: app.setFont(QFont(app.font().family(), round(app.font().pointSizeF() / 1.4))),
    ]
    for change in changes:
        for width in (1100, 1366, labelled_width(window) + 4):
            await resized(window, width, 768)
            change()
            await settled(window)
            assert_right_mode(window)

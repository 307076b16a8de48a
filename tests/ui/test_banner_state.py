"""The banner above the transcript is a part of the window's state (issue 22 item 3):
the model server's, config.toml's problems, a read-only store's and the demo's are
reduced with the rest (:func:`ikgui.ui.window.state.banner_of`), and the chrome draws
it, so a banner the user dismissed stays dismissed whatever redraws the window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.test_model_selector import serve_lists, two_providers
from tests.ui.test_window import closed, opened

__all__ = ["closed_url", "wire_server", "wire_server_session"]


async def test_a_dismissed_server_banner_stays_dismissed(
    tmp_path: Path, wire_server: WireServer, closed_url: str, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    two_providers(home, closed_url, wire_server.url)
    serve_lists(wire_server)
    win = await opened(home, check_timeout=1.0)
    try:
        state = win.chrome.state
        assert state is not None and state.banner is not None
        assert state.banner.topic == "server" and "Could not connect" in state.banner.text
        assert win.banner.isVisible() and win.banner.button.isVisible()
        close = win.banner.findChild(QToolButton, "bannerClose")
        assert close is not None
        qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
        assert not win.banner.isVisible()
        state = win.chrome.state
        assert state is not None and state.banner is None
        win.chrome.refresh()  # everything read again: still dismissed
        assert not win.banner.isVisible()
    finally:
        await closed(win)


async def test_the_unsaved_indicator_draws_the_state_s_writes(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    two_providers(home, wire_server.url, wire_server.url)
    serve_lists(wire_server)
    win = await opened(home)
    try:
        state = win.chrome.state
        assert state is not None and state.writes.count == 0
        assert win.unsaved.writes == state.writes and not win.unsaved.isVisible()
    finally:
        await closed(win)

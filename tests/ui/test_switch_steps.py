"""A switch to a long conversation paints sooner (issue 10 item 4: switching to the
10,000-event conversation ≤ 100 ms until painted): the window lays out a screenful at
the end, and the rest of the page is added above it in steps once that is painted,
the view staying at the bottom; a switch made meanwhile stops the steps."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from ikgui.ui.transcript.scrollback import PAGE_SIZE
from ikgui.ui.transcript.start import FIRST_SCREEN
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_startup_tail import CONV, first_painted, make_home
from tests.ui.test_window import closed

__all__ = ["wire_server", "wire_server_session"]


async def test_a_switch_lays_out_a_screenful_then_the_page_in_steps(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home", wire_server.url, 400)
    win = await first_painted(tmp_path / "home")
    try:
        view = win.scrollback
        await wait_until(lambda: not view.filling)
        win.open_conversation(CONV)  # as the sidebar does
        texts = view.item_texts()
        assert len(texts) == FIRST_SCREEN and texts[-1] == "message 399"
        assert view.filling
        bar = view.verticalScrollBar()
        await wait_until(lambda: not view.filling)
        texts = view.item_texts()
        assert len(texts) == PAGE_SIZE and texts[-1] == "message 399"
        assert bar.value() == bar.maximum()  # still at the end
        assert view.has_earlier()  # older pages still load on scrolling up

        win.open_conversation(CONV)
        win.open_conversation(CONV)  # the first switch's steps stop; the second's run
        await wait_until(lambda: not view.filling)
        assert len(view.item_texts()) == PAGE_SIZE
    finally:
        await closed(win)

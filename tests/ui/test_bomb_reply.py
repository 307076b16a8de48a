"""A decompression bomb in the window (issue 21 item 3): a reply sent as
``Content-Encoding: gzip, gzip`` around 4 GiB of zeros ends in an error card saying why,
keeping the text that came first, while the window's memory stays small (the body is
decoded and counted piece by piece, never unfolded whole)."""

from __future__ import annotations

import resource

from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.ui.window.main_window import MainWindow
from tests.providers.test_endless import delta
from tests.support.bombs import encoding, nested_gzip
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.waiting import wait_until
from tests.support.wire_server import Reply, WireServer
from tests.ui.test_error_once import card
from tests.ui.test_window import settle, texts, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]

SSE = (("content-type", "text/event-stream"),)
#: The most the window's peak memory may grow by (the old code unfolded 256 MiB at once).
GROWTH = 150 * 1024 * 1024


async def test_a_bomb_reply_ends_in_an_error_card_keeping_what_came(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    body = nested_gzip(delta("Before") + delta(" the bomb"))
    wire_server.route("/v1/chat/completions", Reply(headers=SSE + encoding(2), source=body))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    await type_and_send(qtbot, window, "hello")
    await wait_until(
        lambda: any(e.kind == Kind.ERROR for e in window.session.state.scrollback), timeout=60
    )
    await settle(window)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    assert grown < GROWTH, grown
    shown = card(window)
    assert "(uncompressed)" in shown and "stopped" in shown, shown
    assert any("Before the bomb" in t for t in texts(window)), texts(window)

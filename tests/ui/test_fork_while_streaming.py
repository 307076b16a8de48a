"""Enter on ``/fork`` while a reply streams into the open conversation (issue 20, item
8): the window refuses it with a visible line saying why and keeps the typed text (as
every refused line does), whether the reply streams here or in another process
(``ikgui run -c``), where a fork would branch at a reply still growing."""

from __future__ import annotations

import signal

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ikgui.domain.session.crashed import being_written
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.store_window import terminal_run
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]

REFUSED = "Error: Cannot fork while a reply is streaming"


async def enter_fork(window: MainWindow, qtbot: QtBot) -> None:
    window.prompt.setFocus()
    qtbot.keyClicks(window.prompt, "/fork")
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    await wait_until(lambda: window.feedback.text() != "")


async def test_enter_on_fork_while_a_reply_streams_here_says_why(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply(*[f"x{i} " for i in range(300)], pause=0.02))
    await type_and_send(qtbot, window, "count")
    await wait_until(lambda: any(t.startswith("x0 x1") for t in texts(window)))
    conv = window.current_id
    await enter_fork(window, qtbot)
    assert window.feedback.text() == REFUSED and window.feedback.isVisible()
    assert window.prompt.toPlainText() == "/fork"  # nothing ran: the text stays
    assert window.current_id == conv and window.store.children(conv) == []
    window.session.stop()
    await settle(window)


async def test_enter_on_fork_while_another_process_streams_here_says_why(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("first"))
    await type_and_send(qtbot, window, "hello")
    await settle(window)
    conv = window.current_id
    wire_server.route("/v1/chat/completions", reply(*[f"y{i} " for i in range(400)], pause=0.05))
    terminal = terminal_run(window, conv, "count")
    try:
        await wait_until(lambda: being_written(window.store, conv), timeout=30)
        await enter_fork(window, qtbot)
        assert window.feedback.text() == REFUSED and window.feedback.isVisible()
        assert window.prompt.toPlainText() == "/fork"
        assert window.current_id == conv and window.store.children(conv) == []
    finally:
        terminal.send_signal(signal.SIGTERM)
        terminal.communicate(timeout=20)
    await settle(window)

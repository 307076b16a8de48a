"""A question the window asks while a reply streams (a mark's label, where to export,
which folder) does not stop the reply (issue 22 item 3): the dialog is window-modal and
``open()``-ed, so the action returns at once and the loop keeps turning; the answer
comes to a callback. (``exec()`` or a static ``QInputDialog.getText`` would run a second
event loop inside the step that opened it, and no task would run until it closed.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QInputDialog
from pytestqt.qtbot import QtBot

from ikgui.ui.questions import OBJECT_NAME
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_pg_stopped import endless, last
from tests.ui.test_window import quiet, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]


def question(win: MainWindow) -> QDialog | None:
    found = win.findChild(QDialog, OBJECT_NAME)
    return found if isinstance(found, QDialog) and found.isVisible() else None


def open_mark(win: MainWindow) -> None:
    win.toolbar_actions["actionMark"].trigger()


def open_export(win: MainWindow) -> None:
    win.toolbar_actions["actionExport"].trigger()


def open_export_many(win: MainWindow) -> None:
    win.commands.selection.export_many([win.current_id])


@pytest.mark.parametrize("ask", [open_mark, open_export, open_export_many])
async def test_a_question_asked_while_a_reply_streams_lets_the_reply_grow(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, ask: Callable[[MainWindow], None]
) -> None:
    wire_server.route("/v1/chat/completions", endless("word "))
    await type_and_send(qtbot, window, "go on")
    await wait_until(lambda: last(window).startswith("Streaming word"))
    returned = False
    blocked: list[bool] = []

    def check() -> None:
        """Runs from Qt's loop: a dialog open while the action has not returned means
        the action sits in a nested event loop (exec): say so and close it."""
        shown = question(window) or QApplication.activeModalWidget()
        if isinstance(shown, QDialog) and not returned:
            blocked.append(True)
            shown.reject()

    watcher = QTimer()
    watcher.setInterval(0)
    watcher.timeout.connect(check)
    watcher.start()
    try:
        ask(window)  # from this coroutine's step, as a toolbar click inside a task would
        returned = True
    finally:
        watcher.stop()
    assert not blocked, "the question ran an event loop of its own (exec)"
    dialog = question(window)
    assert dialog is not None and dialog.windowModality() == Qt.WindowModality.WindowModal
    shown = len(last(window))
    await wait_until(lambda: len(last(window)) > shown + 50)  # growing behind the question
    assert question(window) is dialog
    dialog.reject()
    window.stop()
    await quiet(window)


async def test_a_mark_label_asked_while_a_reply_streams_marks_on_ok(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", endless("word "))
    await type_and_send(qtbot, window, "go on")
    await wait_until(lambda: last(window).startswith("Streaming word"))
    window.stop()
    await quiet(window)
    open_mark(window)
    dialog = question(window)
    assert isinstance(dialog, QInputDialog)
    dialog.setTextValue("here")
    dialog.accept()
    await wait_until(lambda: any(m.label == "here" for m in window.session.state.marks))
    await quiet(window)


async def test_export_asks_where_and_writes_there(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, tmp_path: Path
) -> None:
    wire_server.route("/v1/chat/completions", endless("word "))
    await type_and_send(qtbot, window, "go on")
    await wait_until(lambda: last(window).startswith("Streaming word"))
    window.stop()
    await quiet(window)
    open_export(window)
    dialog = question(window)
    assert isinstance(dialog, QFileDialog)
    target = tmp_path / "out.md"
    dialog.fileSelected.emit(str(target))
    dialog.reject()
    await wait_until(target.exists)
    assert "go on" in target.read_text(encoding="utf-8")
    await quiet(window)

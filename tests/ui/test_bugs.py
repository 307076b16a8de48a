"""The path for bugs in the real window: a slot or a spawned task that raises ends in the
log file under the data folder and in one dialog with Copy details; Qt's messages go to
the log by severity."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from PySide6.QtCore import qCritical, qInstallMessageHandler, qWarning
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from ikgui.local.log import log_path
from ikgui.ui.bugs import BugPath, install, qt_message
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, write_config

__all__ = ["wire_server", "wire_server_session"]


@pytest_asyncio.fixture(loop_scope="session")
async def window(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> AsyncIterator[MainWindow]:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    yield win
    await closed(win)


@pytest.fixture
def bug_path(tmp_path: Path) -> Iterator[BugPath]:
    """The hooks as ``ikgui.app.root.main`` installs them, over this test's data folder."""
    path = install(asyncio.get_event_loop_policy().get_event_loop(), tmp_path / "data")
    yield path
    path.uninstall()


def logged(tmp_path: Path) -> str:
    return log_path(tmp_path / "data").read_text(encoding="utf-8")


@pytest.mark.logs_errors
@pytest.mark.qt_no_exception_capture  # (pytest-qt's own hook would take the exception)
async def test_a_slot_that_raises_is_logged_and_shown_with_copy_details(
    window: MainWindow, bug_path: BugPath, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(page: str = "providers") -> None:
        raise ValueError("settings <b>went</b> missing")

    monkeypatch.setattr(window.dialogs, "open_settings", broken)
    assert window.toolbar_actions["actionSettings"].isEnabled()
    window.toolbar_actions["actionSettings"].trigger()
    await wait_until(lambda: bug_path.dialog is not None and bug_path.dialog.isVisible())

    text = logged(tmp_path)
    assert "Traceback (most recent call last)" in text and "in broken" in text
    assert "ValueError: settings <b>went</b> missing" in text
    dialog = bug_path.dialog
    assert dialog is not None and not dialog.isModal()
    assert "ValueError: settings <b>went</b> missing" in dialog.summary.text()  # plain text
    assert str(log_path(tmp_path / "data")) in dialog.summary.text()
    assert "in broken" in dialog.details.toPlainText()
    QGuiApplication.clipboard().clear()
    dialog.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    assert "Traceback (most recent call last)" in copied and "in broken" in copied

    # A second error while it is shown joins it: one dialog, counted.
    window.toolbar_actions["actionSettings"].trigger()
    await wait_until(lambda: dialog.count == 2)
    assert bug_path.dialog is dialog and dialog.more.isVisible()
    assert "1 more error since then" in dialog.more.text()
    assert dialog.details.toPlainText().count("in broken") == 2


@pytest.mark.logs_errors
async def test_a_spawned_task_that_raises_is_logged_and_shown(
    window: MainWindow, bug_path: BugPath, tmp_path: Path
) -> None:
    async def check() -> None:
        await asyncio.sleep(0)
        raise KeyError("no such provider")

    task = window.spawn(check(), "model-check")
    await wait_until(lambda: bug_path.dialog is not None and bug_path.dialog.isVisible())
    assert task.done()
    text = logged(tmp_path)
    assert "model-check failed" in text and "KeyError: 'no such provider'" in text
    assert "in check" in text
    assert bug_path.dialog is not None
    assert "in check" in bug_path.dialog.details.toPlainText()


async def test_a_cancelled_task_is_no_bug(window: MainWindow, bug_path: BugPath) -> None:
    task = window.spawn(asyncio.sleep(3600), "long")
    await asyncio.sleep(0)
    task.cancel()
    await wait_until(task.done)
    await asyncio.sleep(0)  # (its done callbacks run on the next turn)
    assert bug_path.dialog is None


@pytest.mark.logs_errors
async def test_without_the_hooks_a_task_s_exception_is_still_logged(
    window: MainWindow, caplog: pytest.LogCaptureFixture
) -> None:
    """Surfaced through the loop's default handler (the error watch of the test suite
    relies on this), retrieved so that nothing complains again when it is collected."""

    async def check() -> None:
        raise RuntimeError("unseen")

    with caplog.at_level(logging.ERROR):
        task = window.spawn(check(), "unseen-task")
        await wait_until(lambda: any("unseen-task failed" in r.message for r in caplog.records))
    record = next(r for r in caplog.records if "unseen-task failed" in r.message)
    assert record.name.startswith(("asyncio", "qasync")) and record.exc_info is not None
    del task


@pytest.mark.no_qt_log  # (pytest-qt's own handler would take the messages)
def test_qt_messages_go_to_the_log_by_severity(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    previous = qInstallMessageHandler(qt_message)
    try:
        with caplog.at_level(logging.DEBUG, logger="ikgui.qt"):
            qWarning("QObject::connect: No such signal")
        assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
            ("ikgui.qt", logging.WARNING, "QObject::connect: No such signal")
        ]
    finally:
        qInstallMessageHandler(previous)


@pytest.mark.no_qt_log
@pytest.mark.logs_errors
async def test_a_qt_warning_and_a_critical_reach_the_log_file(
    bug_path: BugPath, tmp_path: Path
) -> None:
    previous = qInstallMessageHandler(qt_message)
    try:
        qWarning("a Qt warning")
        qCritical("a Qt critical message")
    finally:
        qInstallMessageHandler(previous)
    lines = logged(tmp_path).splitlines()
    assert any(" WARNING ikgui.qt: a Qt warning" in line for line in lines)
    assert any(" ERROR ikgui.qt: a Qt critical message" in line for line in lines)
    assert bug_path.dialog is None  # Qt's messages are the log's, not the user's


@pytest.mark.logs_errors
async def test_a_thread_that_raises_is_logged_and_shown_on_the_gui_thread(
    bug_path: BugPath, tmp_path: Path
) -> None:
    def warm_up() -> None:
        raise OSError("the keyring went away")

    thread = threading.Thread(target=warm_up, name="warm-up")
    thread.start()
    thread.join()
    await wait_until(lambda: bug_path.dialog is not None and bug_path.dialog.isVisible())
    assert bug_path.dialog is not None
    assert "(in warm-up)" in bug_path.dialog.summary.text()
    text = logged(tmp_path)
    assert "OSError: the keyring went away" in text and "in warm_up" in text

"""When the database server is away: start-up shows one page that says so and retries
until the server answers (then the real main window opens); a connection lost while a
reply streams keeps the text, and writes it once when the server is back."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from ikgui.domain.errors import DatabaseUnreachable
from ikgui.domain.session import pending
from ikgui.storage import open_store
from ikgui.ui.db_wait import DatabaseWaitPage, open_when_reachable
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.pg_server import PgServer
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.store_window import window_over
from tests.ui.test_window import closed, quiet, reply, settle, texts, type_and_send, write_config

__all__ = ["closed_url", "wire_server", "wire_server_session"]


def shown(kind: type[QWidget]) -> list[QWidget]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()]


def page() -> DatabaseWaitPage:
    found = shown(DatabaseWaitPage)
    assert len(found) == 1
    return found[0]  # type: ignore[return-value]


def opener(url: str, home: Path) -> Callable[[], MainWindow]:
    """What the start-up runs: open the store (raises while the server is away), build
    the window, show it."""

    def open_window() -> MainWindow:
        window = window_over(open_store(url), home)
        window.show()
        return window

    return open_window


def first_failure(open_window: Callable[[], MainWindow]) -> DatabaseUnreachable:
    with pytest.raises(DatabaseUnreachable) as caught:
        open_window()
    return caught.value


async def test_start_up_with_the_server_away_waits_on_one_page_then_opens_the_window(
    pg_server: PgServer,
    pg_url: str,
    wire_server: WireServer,
    tmp_path: Path,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    open_window = opener(pg_url, home)
    pg_server.stop()
    error = first_failure(open_window)
    where = f"127.0.0.1:{pg_server.port}"
    assert error.where == where
    tries: list[None] = []
    show_trying = DatabaseWaitPage.show_trying
    monkeypatch.setattr(
        DatabaseWaitPage, "show_trying", lambda self: tries.append(None) or show_trying(self)
    )
    waiting = asyncio.ensure_future(open_when_reachable(open_window, error, first_delay=0.2))
    await wait_until(lambda: len(shown(DatabaseWaitPage)) == 1)
    wait = page()
    assert wait.headline.text() == f"Cannot reach the database at {where} — retrying"
    assert wait.headline.textFormat() == Qt.TextFormat.PlainText
    assert wait.reason.text() and "Traceback" not in wait.reason.text()
    assert "IKGUI_DATABASE_URL" in wait.hint.text()
    await wait_until(lambda: wait.status.text().startswith("Trying again in"))
    wait.grab().save(str(tmp_path / "database-away.png"))
    await wait_until(lambda: len(tries) >= 3)  # a few tries fail: still the one page, no window
    assert not waiting.done() and not shown(MainWindow) and len(shown(DatabaseWaitPage)) == 1
    pg_server.start()
    window = await asyncio.wait_for(waiting, 30)
    try:
        assert isinstance(window, MainWindow) and window.isVisible()
        assert not shown(DatabaseWaitPage)
        await quiet(window)
    finally:
        await closed(window)


async def test_retry_now_tries_at_once_and_quit_gives_up(
    pg_server: PgServer, pg_url: str, wire_server: WireServer, tmp_path: Path, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    open_window = opener(pg_url, home)
    pg_server.stop()
    error = first_failure(open_window)
    # Quit: nothing opens, the page goes away.
    quitting = asyncio.ensure_future(open_when_reachable(open_window, error, first_delay=60))
    await wait_until(lambda: len(shown(DatabaseWaitPage)) == 1)
    qtbot.mouseClick(page().quit_button, Qt.MouseButton.LeftButton)
    assert await asyncio.wait_for(quitting, 5) is None
    assert not shown(DatabaseWaitPage)
    # Retry now: with a minute to wait, the click opens the window once the server is up.
    waiting = asyncio.ensure_future(open_when_reachable(open_window, error, first_delay=60))
    await wait_until(lambda: len(shown(DatabaseWaitPage)) == 1)
    pg_server.start()
    qtbot.mouseClick(page().retry_button, Qt.MouseButton.LeftButton)
    window = await asyncio.wait_for(waiting, 10)
    try:
        assert isinstance(window, MainWindow)
        await quiet(window)
    finally:
        await closed(window)


async def test_a_connection_lost_mid_stream_keeps_the_reply_and_writes_it_once(
    pg_server: PgServer,
    pg_url: str,
    wire_server: WireServer,
    tmp_path: Path,
    qtbot: QtBot,
    capfd: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    window = window_over(open_store(pg_url), home)
    window.show()
    await quiet(window)
    try:
        words = [f"w{i} " for i in range(100)]
        wire_server.route("/v1/chat/completions", reply(*words, pause=0.04))
        await type_and_send(qtbot, window, "tell me a story")
        await wait_until(lambda: any(t.startswith("w0 w1") for t in texts(window)))
        conv = window.current_id
        qtbot.keyClicks(window.prompt, "the next question")  # typed while it streams
        await asyncio.to_thread(pg_server.stop)
        # A save of the growing reply fails: kept in memory, and the window says so.
        await wait_until(lambda: bool(window.session.writes), 10)
        await wait_until(lambda: window.unsaved.isVisible())
        assert window.unsaved.label.text().startswith("Not saved yet")
        window.grab().save(str(tmp_path / "away-mid-stream.png"))
        await asyncio.to_thread(pg_server.start)
        await settle(window)  # the reply streamed to its end meanwhile
        full = "".join(words).strip()
        assert texts(window)[-2:] == ["tell me a story", full]
        qtbot.mouseClick(window.unsaved.retry_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not window.session.writes and not window.unsaved.isVisible())
        with open_store(pg_url) as fresh:
            stored = [(e.kind, e.content.strip()) for e in fresh.events(conv)]
            assert stored == [("user", "tell me a story"), ("assistant", full)]
            # What was typed meanwhile stayed in the editor, and is saved as its draft.
            assert window.prompt.toPlainText() == "the next question"
            await wait_until(lambda: fresh.get_conversation(conv).draft == "the next question")
        assert texts(window)[-2:] == ["tell me a story", full]
        # No error line for the draft; the status bar said it is reconnecting, no more.
        assert not window.feedback.text().startswith("Error")
    finally:
        await closed(window)
    assert "Traceback" not in capfd.readouterr().err


#: ``ikgui.app.root.main`` as the ``ikgui`` command runs it, telling what it shows on stdout.
MAIN = r"""
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from ikgui.app import root as app
from ikgui.ui.db_wait import DatabaseWaitPage
from ikgui.ui.loop import application
from ikgui.ui.window.main_window import MainWindow

application([sys.argv[0]])
told = set()

def look():
    for widget in QApplication.topLevelWidgets():
        if widget.isVisible() and isinstance(widget, DatabaseWaitPage) and not told:
            told.add("wait")
            print("WAIT", widget.headline.text(), flush=True)
        if widget.isVisible() and isinstance(widget, MainWindow):
            print("MAIN", widget.store.describe(), flush=True)
            widget.close()
            return
    QTimer.singleShot(50, look)

QTimer.singleShot(0, look)
print("EXIT", app.main([]), flush=True)
"""


async def test_ikgui_started_with_the_server_away_opens_once_it_answers(
    pg_server: PgServer, pg_url: str, wire_server: WireServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    pg_server.stop()
    env = dict(os.environ, IKGUI_HOME=str(home), IKGUI_DATABASE_URL=pg_url)
    process = subprocess.Popen(
        [sys.executable, "-c", MAIN],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), 30)
        where = f"127.0.0.1:{pg_server.port}"
        assert first.strip() == f"WAIT Cannot reach the database at {where} — retrying"
        await asyncio.to_thread(pg_server.start)
        out, err = await asyncio.wait_for(asyncio.to_thread(process.communicate), 60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    database = pg_url.rsplit("/", 1)[1]
    assert out.splitlines() == [f"MAIN PostgreSQL ikgui@{where}/{database}", "EXIT 0"]
    assert "Traceback" not in err


async def test_what_waits_is_written_as_soon_as_the_listener_hears_the_server(
    pg_server: PgServer,
    pg_url: str,
    wire_server: WireServer,
    tmp_path: Path,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Issue 21 item 15: the retry loop's timer is made an hour long here, so the write
    that lands once the server is back can only come from the change listener noticing
    it reconnected (the window used to wait for the loop: up to 25 s)."""
    monkeypatch.setattr(pending, "FIRST_DELAY", 3600.0)
    monkeypatch.setattr(pending, "MAX_DELAY", 3600.0)
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    window = window_over(open_store(pg_url), home)
    window.show()
    await quiet(window)
    try:
        await wait_until(lambda: window.store.listener.connected)  # type: ignore[attr-defined]
        words = [f"w{i} " for i in range(60)]
        wire_server.route("/v1/chat/completions", reply(*words, pause=0.04))
        await type_and_send(qtbot, window, "tell me a story")
        await wait_until(lambda: any(t.startswith("w0 w1") for t in texts(window)))
        conv = window.current_id
        await asyncio.to_thread(pg_server.stop)
        await wait_until(lambda: bool(window.session.writes), 10)
        await settle(window)  # the reply streamed to its end, kept in memory
        assert window.session.writes
        flushes = 0
        flush = window.session.writes.flush

        def counted() -> bool:
            nonlocal flushes
            flushes += 1
            return flush()

        monkeypatch.setattr(window.session.writes, "flush", counted)
        await asyncio.to_thread(pg_server.start)
        # No click on "Retry now", and the loop's next try is an hour away.
        await wait_until(lambda: not window.session.writes, 30)
        assert flushes >= 1
        full = "".join(words).strip()
        with open_store(pg_url) as fresh:
            stored = [(e.kind, e.content.strip()) for e in fresh.events(conv)]
            assert stored == [("user", "tell me a story"), ("assistant", full)]
    finally:
        await closed(window)
    assert "Traceback" not in capfd.readouterr().err

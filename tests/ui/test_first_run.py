"""The first minutes: the welcome state, "Set up a provider", the read-only demo, and
the launch conventions (--self-test, --paths, one window per database)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtNetwork import QLocalSocket
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from ikgui.app.root import build_window
from ikgui.domain.events import Kind
from ikgui.ui.single_instance import server_name
from ikgui.ui.window.main_window import MainWindow
from tests.support.waiting import wait_for
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, type_and_send


async def test_an_empty_database_shows_the_welcome(tmp_path: Path, qtbot: QtBot) -> None:
    win = await opened(tmp_path / "home", check_timeout=0.5)
    try:
        assert win.centre_stack.currentWidget() is win.welcome
        text = " ".join(w.text() for w in win.welcome.findChildren(type(win.feedback)))
        for words in ("Send", "Mark and rewind", "Fork"):
            assert words in text
        dialog = None
        win.welcome.setup_button.click()
        dialog = win.settings_dialog
        assert dialog.current_page() == "providers"
        assert dialog.providers_page.url_edit.text() == "http://localhost:11434"
        assert dialog.providers_page.test_button.isVisible()
        dialog.close()
        # once something is stored, the transcript takes its place
        await win.run_line("/prompt a first prompt")
        assert win.centre_stack.currentWidget() is win.scrollback
    finally:
        await closed(win)


async def test_open_a_demo_is_read_only_and_realistic(tmp_path: Path, qtbot: QtBot) -> None:
    win = await opened(tmp_path / "home", check_timeout=0.5)
    demo: MainWindow | None = None
    try:
        win.welcome.demo_button.click()
        demo = win.demo_window
        assert demo.read_only and demo.isVisible()
        assert "read-only" in demo.windowTitle() and demo.banner.isVisible()
        session = demo.session
        convs = session.store.list_conversations()
        assert len(convs) >= 5
        assert any(c.parent for c in convs) and any(c.tags for c in convs)
        root = next(c for c in convs if c.title == "SQLite WAL for the app")
        kinds = [e.kind for e in session.store.events(root.id)]
        assert {Kind.MARK, Kind.REWIND, Kind.PROMPT_EDIT, Kind.FORK} <= set(kinds)
        shown = demo.scrollback.item_texts()
        assert any("PRAGMA journal_mode=wal" in t for t in shown)
        before = len(session.store.events(session.conversation.id))
        await demo.run_line("/mark nope")
        demo.rewind_to(1)
        assert demo.feedback.text().startswith("The demo is read-only")
        assert not demo.toolbar_actions["actionFork"].isEnabled()
        assert len(session.store.events(session.conversation.id)) == before
        # the user's own database got nothing from the demo
        assert win.store.list_conversations() == []
        demo_db = Path(session.store.path)  # type: ignore[attr-defined]
        await closed(demo)
        assert not demo_db.exists()
        demo = None
    finally:
        if demo is not None:
            await closed(demo)
        await closed(win)


def run_ikgui(*args: str, home: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, IKGUI_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "ikgui", *args],
        env=env,
        text=True,
        capture_output=True,
        timeout=timeout,
    )


def test_self_test_paths_version_and_help(tmp_path: Path) -> None:
    result = run_ikgui("--self-test", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ikgui self-test: ok")
    paths = run_ikgui("--paths", home=tmp_path).stdout
    assert f"database: {tmp_path / 'ikgui.db'}" in paths
    assert run_ikgui("--version", home=tmp_path).stdout.strip() == "ikgui 0.1.0"
    usage = run_ikgui("--help", home=tmp_path).stdout
    assert "run" in usage and "conv" in usage and "--self-test" in usage


def test_a_second_launch_brings_the_first_window_to_front(tmp_path: Path) -> None:
    env = dict(os.environ, IKGUI_HOME=str(tmp_path), QT_QPA_PLATFORM="offscreen")
    first = subprocess.Popen(
        [sys.executable, "-m", "ikgui"],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: _listening(tmp_path / "ikgui.db") or first.poll() is not None, 30)
        assert first.poll() is None, "the first window exited"
        second = run_ikgui(home=tmp_path, timeout=30)
        assert second.returncode == 0
        assert "already open on this database" in second.stdout
        assert first.poll() is None  # the first window is still running
    finally:
        first.terminate()
        _, err = first.communicate(timeout=20)
    assert "another launch asked for this window" in err


def _listening(database: Path) -> bool:
    probe = QLocalSocket()
    probe.connectToServer(server_name(database))
    connected = probe.waitForConnected(200)
    probe.abort()
    return connected


async def test_build_window_registers_on_the_qasync_loop(tmp_path: Path) -> None:
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        assert QApplication.instance() is not None
        await wait_until(lambda: all(t.done() for t in win._tasks))
    finally:
        await closed(win)


async def test_welcome_disappears_after_the_first_message(tmp_path: Path, qtbot: QtBot) -> None:
    win = await opened(tmp_path / "home", check_timeout=0.3)
    try:
        assert win.centre_stack.currentWidget() is win.welcome
        await type_and_send(qtbot, win, "hello")
        await wait_until(lambda: all(t.done() for t in win._tasks))
        assert win.centre_stack.currentWidget() is win.scrollback
        assert win.scrollback.item_texts()[0] == "hello"
    finally:
        await closed(win)

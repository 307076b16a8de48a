"""API keys never hold up the window (issue 22 item 4): a send looks its provider's key
up in a worker thread, once, and keeps it until Settings are saved; a keyring that hangs
leaves the window's event loop turning (it ticks, the prompt takes typing) while the
send waits for the key."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.hangkeyring import HangingKeyring
from tests.support.memkeyring import MemoryKeyring
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, quiet, reply, texts, type_and_send, write_config

__all__ = ["wire_server", "wire_server_session"]


class Ticks:
    """Counts the turns of the window's event loop (a 0 ms timer)."""

    def __init__(self) -> None:
        self.count = 0
        self.timer = QTimer()
        self.timer.setInterval(0)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        self.count += 1


@pytest.fixture
def hanging_keyring() -> Iterator[HangingKeyring]:
    previous = keyring.get_keyring()
    backend = HangingKeyring()
    try:
        yield backend
    finally:
        backend.release()
        keyring.set_keyring(previous)


def key_of(server: WireServer, index: int) -> str:
    return server.requests[index].headers.get("authorization", "")


def callers(win: MainWindow) -> list[int]:
    """Record the threads that ask the window's key store for a key."""
    keys = win.services.keys
    asked: list[int] = []
    get = keys.get

    def recorded(*args: object, **kwargs: object) -> str | None:
        asked.append(threading.get_ident())
        return get(*args, **kwargs)  # type: ignore[arg-type]

    keys.get = recorded
    return asked


async def send(qtbot: QtBot, win: MainWindow, server: WireServer, text: str) -> None:
    before = len(server.requests)
    await type_and_send(qtbot, win, text)
    await wait_until(lambda: len(server.requests) > before and not win.session.streaming)
    await quiet(win)


async def test_two_sends_ask_the_keyring_once_and_settings_ask_again(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.set_password("ikgui", "local", "sk-first")
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("fine"))
    win = await opened(home)
    asked = callers(win)
    try:
        await send(qtbot, win, wire_server, "one")
        await send(qtbot, win, wire_server, "two")
        chats = [r for r in wire_server.requests if r.path.endswith("/chat/completions")]
        assert [r.headers.get("authorization") for r in chats] == ["Bearer sk-first"] * 2
        assert [who for who, _ in memory_keyring.reads] == ["local"]
        gui = threading.get_ident()
        assert all(thread != gui for _, thread in memory_keyring.reads)
        assert gui not in asked

        # Another process stores a new key: the window keeps the one it has ...
        memory_keyring.set_password("ikgui", "local", "sk-second")
        await send(qtbot, win, wire_server, "three")
        assert key_of(wire_server, -1) == "Bearer sk-first"
        # ... until Settings are saved (what the dialog's OK does).
        win.dialogs.save_settings(win.session.settings)
        await quiet(win)
        await send(qtbot, win, wire_server, "four")
        assert key_of(wire_server, -1) == "Bearer sk-second"
        assert [who for who, _ in memory_keyring.reads] == ["local", "local"]
        assert asked and gui not in asked
        assert texts(win)[-1] == "fine"
    finally:
        await closed(win)


async def test_a_hanging_keyring_leaves_the_window_turning_while_the_send_waits(
    tmp_path: Path,
    wire_server: WireServer,
    qtbot: QtBot,
    memory_keyring: MemoryKeyring,
    hanging_keyring: HangingKeyring,
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("at last"))
    win = await opened(home)
    keys = win.services.keys
    asked = callers(win)
    ticks = Ticks()
    try:
        keyring.set_keyring(hanging_keyring)
        win.dialogs.save_settings(win.session.settings)  # the key is looked up again
        await type_and_send(qtbot, win, "hello")
        await wait_until(lambda: hanging_keyring.asked)
        start = ticks.count
        # The key store waits for the keyring (up to its limit) and the loop turns.
        await wait_until(lambda: ticks.count > start + 20 or keys.unanswered is not None)
        assert keys.unanswered is None, "the window froze while the keyring did not answer"
        win.prompt.setFocus()
        qtbot.keyClicks(win.prompt, "typed meanwhile")
        assert win.prompt.toPlainText() == "typed meanwhile"
        assert keys.unanswered is None  # still waiting for the key: nothing sent yet
        assert not any(r.path.endswith("/chat/completions") for r in wire_server.requests)
        gui = threading.get_ident()
        assert gui not in hanging_keyring.asked and gui not in asked
        # The key store gives up on the keyring; the send goes on without a key.
        await wait_until(lambda: texts(win)[-1:] == ["at last"], timeout=30)
        assert win.prompt.toPlainText() == "typed meanwhile"
    finally:
        ticks.timer.stop()
        hanging_keyring.release()
        await quiet(win)
        await closed(win)

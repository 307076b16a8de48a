"""Alternatives in place in the window (issue 25 item 1): retry a reply twice and flip
between the three answers with ``‹ 2/3 ›`` (mouse and keyboard); edit a message and flip
between the two versions without the sidebar list growing; reopen and find the choice."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ikgui.ui.transcript.switcher import AlternativeSwitcher
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, reply, settle, texts, type_and_send, write_config

__all__ = ["closed_url", "wire_server", "wire_server_session"]


@pytest.fixture
def window_home(tmp_path: Path, wire_server: WireServer) -> Path:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    return home


def switchers(win: MainWindow) -> list[AlternativeSwitcher]:
    found = win.scrollback.viewport().findChildren(AlternativeSwitcher, "alternativeSwitcher")
    return [s for s in found if s.isVisible()]


async def one_switcher(win: MainWindow) -> AlternativeSwitcher:
    await wait_until(lambda: len(switchers(win)) == 1)
    return switchers(win)[0]


async def test_retry_twice_and_flip_between_the_three_answers(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        wire_server.route("/v1/chat/completions", reply("red"))
        await type_and_send(qtbot, win, "a colour?")
        await settle(win)
        assert switchers(win) == []
        for answer in ("green", "blue"):
            wire_server.route("/v1/chat/completions", reply(answer))
            win.scrollback.retry_requested.emit(win.session.state.context[-1].id)
            await settle(win)
        assert texts(win)[-2:] == ["a colour?", "blue"]
        assert not any("Earlier attempt" in t for t in texts(win))
        switcher = await one_switcher(win)
        assert switcher.accessibleName() == "Alternative 3 of 3"
        assert switcher.label.text() == "3/3" and not switcher.next.isEnabled()

        qtbot.mouseClick(switcher.previous, Qt.MouseButton.LeftButton)
        await wait_until(lambda: texts(win)[-1] == "green")
        switcher = await one_switcher(win)
        await wait_until(lambda: switcher.accessibleName() == "Alternative 2 of 3")
        # The keyboard: one Tab stop, Left and Right flip; the focus stays on it.
        win.scrollback.setFocus()
        qtbot.keyClick(win.scrollback, Qt.Key.Key_Tab)
        assert switcher.hasFocus()
        qtbot.keyClick(switcher, Qt.Key.Key_Left)
        await wait_until(lambda: texts(win)[-1] == "red")
        await wait_until(lambda: switchers(win)[0].accessibleName() == "Alternative 1 of 3")
        assert switchers(win)[0] is switcher and switcher.hasFocus()
        # Only the chosen answer is sent on.
        wire_server.route("/v1/chat/completions", reply("a warm one"))
        await type_and_send(qtbot, win, "why?")
        await settle(win)
        sent = [m["content"] for m in wire_server.bodies()[-1]["messages"][1:]]
        assert sent == ["a colour?", "red", "why?"]
        conv = win.current_id
    finally:
        await closed(win)

    again = await opened(home)
    try:
        assert again.current_id == conv
        await wait_until(lambda: texts(again)[-4:] == ["a colour?", "red", "why?", "a warm one"])
        assert (await one_switcher(again)).accessibleName() == "Alternative 1 of 3"
    finally:
        await closed(again)


async def test_edit_and_flip_between_versions_without_a_new_row(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        wire_server.route("/v1/chat/completions", reply("a cat"))
        await type_and_send(qtbot, win, "draw an animal")
        await settle(win)
        root = win.current_id
        message = win.session.state.context[0]
        wire_server.route("/v1/chat/completions", reply("a dog"))
        win.scrollback.edit_resend_requested.emit(message.id, "draw a pet")
        await settle(win)
        edited = win.current_id
        assert edited != root and texts(win)[-2:] == ["draw a pet", "a dog"]
        switcher = await one_switcher(win)
        assert switcher.accessibleName() == "Alternative 2 of 2"
        qtbot.mouseClick(switcher.previous, Qt.MouseButton.LeftButton)
        await wait_until(lambda: win.current_id == root)
        await wait_until(lambda: texts(win)[:2] == ["draw an animal", "a cat"])
        switcher = await one_switcher(win)
        await wait_until(lambda: switcher.accessibleName() == "Alternative 1 of 2")
        qtbot.mouseClick(switcher.next, Qt.MouseButton.LeftButton)
        await wait_until(lambda: win.current_id == edited)
    finally:
        await closed(win)


async def test_a_search_hit_in_an_attempt_not_shown_chooses_it(
    window_home: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    win = await opened(window_home)
    try:
        wire_server.route("/v1/chat/completions", reply("crimson"))
        await type_and_send(qtbot, win, "a colour?")
        await settle(win)
        wire_server.route("/v1/chat/completions", reply("teal"))
        win.scrollback.retry_requested.emit(win.session.state.context[-1].id)
        await settle(win)
        assert texts(win)[-1] == "teal"
        [hit] = win.session.store.search("crimson")
        assert hit.event_id is not None
        win.sidebar.conversation_activated.emit(hit.conversation.id, hit.event_id)
        await wait_until(lambda: texts(win)[-1] == "crimson")
        await wait_until(
            lambda: [s.accessibleName() for s in switchers(win)] == ["Alternative 1 of 2"]
        )
        assert win.session.store.events(win.current_id)[-1].kind == "choose"
    finally:
        await closed(win)


async def test_the_item_menu_offers_the_other_versions(
    window_home: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    win = await opened(window_home)
    try:
        wire_server.route("/v1/chat/completions", reply("north"))
        await type_and_send(qtbot, win, "a direction?")
        await settle(win)
        wire_server.route("/v1/chat/completions", reply("south"))
        win.scrollback.retry_requested.emit(win.session.state.context[-1].id)
        await settle(win)
        menu = win.scrollback.menu_for(win.session.state.context[-1].id)
        actions = {a.objectName(): a for a in menu.actions()}
        assert actions["actionPreviousVersion"].text() == "Previous version (Alternative 2 of 2)"
        assert not actions["actionNextVersion"].isEnabled()
        actions["actionPreviousVersion"].trigger()
        await wait_until(lambda: texts(win)[-1] == "north")
    finally:
        await closed(win)

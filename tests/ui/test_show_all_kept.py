"""A command's "Show all" stays clicked (issue 15, ODDS item 4): after the user unfolds a
long command output, every rebuild of the transcript — switching away and back, a
resize, a text-size or theme change, the reload after another process's write — shows it
whole again, for as long as the window lives (as an unfolded prompt card stays open)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.storage import open_store
from ikgui.ui import style
from ikgui.ui.transcript.command_output import SHOW_ALL
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.ui.test_commands_enter import events, type_enter
from tests.ui.test_window import settle, texts, window

__all__ = ["window", "wire_server", "wire_server_session"]


def _help_text(win: MainWindow, content: str) -> str:
    """The shown text of the /help item (its first line is the output's)."""
    first = content.split("\n", 1)[0]
    return next(t for t in texts(win) if t.startswith(first))


async def _switch_away_and_back(win: MainWindow) -> None:
    conv_id = win.current_id
    win.session.new_conversation(None)
    await settle(win)
    assert win.current_id != conv_id
    win.open_conversation(conv_id)
    await settle(win)


async def _text_size(win: MainWindow) -> None:
    win.scrollback.set_text_size(130)
    await settle(win)


async def _theme(win: MainWindow) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    style.apply_style(app, "dark")
    await settle(win)
    style.apply_style(app, "light")
    await settle(win)


async def _resize(win: MainWindow) -> None:
    win.resize(700, 500)
    await settle(win)
    win.resize(1300, 800)
    await settle(win)


async def _another_process_writes(win: MainWindow) -> None:
    other = open_store(win.store.path)  # type: ignore[attr-defined]
    try:
        other.append_event(win.current_id, Kind.USER, "written by ikgui run elsewhere")
    finally:
        other.close()
    win.watcher.poll_external_changes()  # the window's poll timer, now
    await settle(win)
    assert texts(win)[-1] == "written by ikgui run elsewhere"  # the transcript was reloaded


REBUILDS: dict[str, Callable[[MainWindow], object]] = {
    "switch away and back": _switch_away_and_back,
    "text size": _text_size,
    "theme": _theme,
    "resize": _resize,
    "another process's write": _another_process_writes,
}


@pytest.mark.parametrize("rebuild", list(REBUILDS))
async def test_show_all_survives_a_rebuild(window: MainWindow, qtbot: QtBot, rebuild: str) -> None:
    await type_enter(qtbot, window, "/mark")
    await type_enter(qtbot, window, "/help")
    [help_event] = events(window, Kind.COMMAND)
    assert SHOW_ALL in _help_text(window, help_event.content)
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-expand:{help_event.id}"))
    assert _help_text(window, help_event.content) == help_event.content
    await REBUILDS[rebuild](window)  # type: ignore[misc]
    assert _help_text(window, help_event.content) == help_event.content  # still whole
    await REBUILDS[rebuild](window)  # type: ignore[misc]
    assert _help_text(window, help_event.content) == help_event.content

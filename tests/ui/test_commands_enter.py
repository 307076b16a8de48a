"""Commands (issue 10, item 8): Enter on a complete command name runs it while the
completion list is open; marks read as a flag line; a long command output is stored
whole but shown folded after its first screenful, with "Show all"."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QUrl
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Event, Kind
from ikgui.ui.transcript.command_output import SHOW_ALL
from ikgui.ui.transcript.items import COMMAND_LINES, display_for
from ikgui.ui.transcript.scrollback import ScrollbackView
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.ui.test_window import settle, texts, window

__all__ = ["window", "wire_server", "wire_server_session"]


def events(win: MainWindow, kind: str) -> list[Event]:
    return [e for e in win.session.state.scrollback if e.kind == kind]


async def type_enter(qtbot: QtBot, win: MainWindow, text: str) -> None:
    """Type ``text`` key by key (the completion list opens after the ``/``), then Enter."""
    win.prompt.setFocus()
    qtbot.keyClicks(win.prompt, text)
    if text.startswith("/") and " " not in text:
        assert win.prompt.popup().isVisible()  # the list still appears while typing
    qtbot.keyClick(win.prompt, Qt.Key.Key_Return)
    await settle(win)


async def test_enter_on_a_complete_command_name_runs_it_once(
    window: MainWindow, qtbot: QtBot
) -> None:
    await type_enter(qtbot, window, "/mark")  # (a mark saves the new conversation)
    [mark] = events(window, Kind.MARK)
    assert mark.data.get("label") is None and window.session.state.marks
    assert texts(window)[-1] == "⚑ mark"
    assert window.prompt.toPlainText() == "" and not window.prompt.popup().isVisible()

    await type_enter(qtbot, window, "/help")
    [help_event] = events(window, Kind.COMMAND)  # run once
    assert help_event.data["input"] == "/help" and help_event.content.startswith("Available")
    assert window.prompt.toPlainText() == "" and not window.prompt.popup().isVisible()
    assert len(events(window, Kind.MARK)) == 1


async def test_enter_on_a_partial_name_completes_it(window: MainWindow, qtbot: QtBot) -> None:
    await type_enter(qtbot, window, "/mark")
    await type_enter(qtbot, window, "/he")
    assert window.prompt.toPlainText() == "/help "
    assert not events(window, Kind.COMMAND)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)  # the completed line runs
    await settle(window)
    assert len(events(window, Kind.COMMAND)) == 1


async def test_a_command_that_needs_an_argument_completes_on_enter(
    window: MainWindow, qtbot: QtBot
) -> None:
    await type_enter(qtbot, window, "/load")  # "/load <ref or words>"
    assert window.prompt.toPlainText() == "/load "
    assert not events(window, Kind.COMMAND) and not window.feedback.isVisible()


async def test_a_mark_shows_as_a_flag_line(window: MainWindow, qtbot: QtBot) -> None:
    await type_enter(qtbot, window, "/mark before the refactor")
    assert texts(window)[-1] == "⚑ before the refactor"
    # The command line keeps its own wording.
    from ikgui.domain.library.listing import describe

    assert describe(events(window, Kind.MARK)[-1]) == "/mark before the refactor"


async def test_a_long_help_is_folded_with_show_all(window: MainWindow, qtbot: QtBot) -> None:
    await type_enter(qtbot, window, "/mark")
    await type_enter(qtbot, window, "/help")
    [help_event] = events(window, Kind.COMMAND)
    lines = help_event.content.split("\n")
    assert len(lines) > COMMAND_LINES + 1  # stored whole (SPEC §5)
    shown = texts(window)[-1]
    hidden = len(lines) - COMMAND_LINES
    assert shown == "\n".join(lines[:COMMAND_LINES]) + f"\n… {hidden} more lines · {SHOW_ALL}"
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-expand:{help_event.id}"))
    assert texts(window)[-1] == help_event.content  # expanded in place
    # Copy gives the whole output, folded or not.
    assert display_for(help_event).text == help_event.content


def _command(event_id: int, lines: int) -> Event:
    content = "\n".join(f"line {i}" for i in range(lines))
    data: dict[str, Any] = {"input": "/x", "ok": True}
    return Event(event_id, "chat-t", Kind.COMMAND, content, data)


def test_short_outputs_and_a_line_or_two_more_are_not_folded(qtbot: QtBot) -> None:
    view = ScrollbackView()
    qtbot.addWidget(view)
    view.show_events([_command(1, COMMAND_LINES + 2), _command(2, COMMAND_LINES + 3)])
    first, second = view.item_texts()
    assert SHOW_ALL not in first and first.count("\n") == COMMAND_LINES + 1
    assert second.endswith(f"… 3 more lines · {SHOW_ALL}")
    view.anchorClicked.emit(QUrl("ikgui-expand:999"))  # not shown: nothing happens
    view.anchorClicked.emit(QUrl("ikgui-expand:2"))
    assert view.item_texts()[1] == _command(2, COMMAND_LINES + 3).content

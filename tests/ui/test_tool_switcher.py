"""The toolbar's Tools button (issue 23 item 4, SPEC §12): the configured tool servers,
checked when the conversation offers them; a click runs ``/tools on|off NAME`` (recorded,
replayed after a restart), the button counts what is offered. Nothing is started."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.waiting import wait_until
from tests.support.wire_server import WireServer
from tests.ui.test_window import closed, opened, window, write_config

__all__ = ["window", "wire_server", "wire_server_session"]

SERVERS = """
[mcp.clock]
command = "no-such-clock-server"

[mcp.files]
command = "no-such-files-server"

[mcp.old]
command = "no-such-old-server"
enabled = false
"""


def home_with_servers(tmp_path: Path, url: str) -> Path:
    home = tmp_path / "home"
    write_config(home, url)
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write(SERVERS)
    return home


def entries(win: MainWindow) -> list[tuple[str, bool, bool]]:
    """The menu's servers: (text, checked, enabled)."""
    menu = win.toolbar_actions.tools.menu
    return [(a.text(), a.isChecked(), a.isEnabled()) for a in menu.actions() if a.isCheckable()]


def item(win: MainWindow, name: str) -> QAction:
    menu = win.toolbar_actions.tools.menu
    return next(a for a in menu.actions() if a.objectName() == f"tools:{name}")


def switches(win: MainWindow) -> list[tuple[str, bool]]:
    return [
        (str(e.data.get("name")), bool(e.data.get("on")))
        for e in win.session.state.scrollback
        if e.kind == Kind.COMMAND and e.data.get("command") == "tools"
    ]


async def test_the_tools_button_lists_and_switches_servers_and_a_restart_keeps_them(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = home_with_servers(tmp_path, wire_server.url)
    win = await opened(home)
    try:
        tools = win.toolbar_actions.tools
        assert tools.button.isVisible() and tools.button.isEnabled()
        assert tools.button.objectName() == "toolsButton"
        assert tools.button.text() == "Tools 2/3"
        assert entries(win) == [
            ("clock", True, True),
            ("files", True, True),
            ("old", False, False),
        ]
        assert tools.menu.actions()[-1].text() == "Settings → Tools…"
        item(win, "clock").trigger()
        await wait_until(lambda: tools.button.text() == "Tools 1/3")
        assert switches(win) == [("clock", False)]
        assert entries(win)[0] == ("clock", False, True)
        item(win, "clock").trigger()
        await wait_until(lambda: tools.button.text() == "Tools 2/3")
        assert entries(win)[0] == ("clock", True, True)
        item(win, "files").trigger()
        await wait_until(lambda: tools.button.text() == "Tools 1/3")
        # The typed command is the same switch.
        win.prompt.setPlainText("/tools off clock")
        win.prompt.submit()
        await wait_until(lambda: tools.button.text() == "Tools 0/3")
        assert switches(win) == [
            ("clock", False),
            ("clock", True),
            ("files", False),
            ("clock", False),
        ]
        conversation = win.session.conversation.id
        assert win.session.conversation.id == conversation
    finally:
        await closed(win)
    win = await opened(home)
    try:
        tools = win.toolbar_actions.tools
        assert win.session.conversation.id == conversation
        assert tools.button.text() == "Tools 0/3"
        assert entries(win) == [
            ("clock", False, True),
            ("files", False, True),
            ("old", False, False),
        ]
        # Another conversation offers its own: the button follows the switch.
        win.runner.run("new")
        await wait_until(lambda: win.session.conversation.id != conversation)
        await wait_until(lambda: tools.button.text() == "Tools 2/3")
    finally:
        await closed(win)


async def test_no_configured_server_no_tools_button(window: MainWindow) -> None:
    assert not window.toolbar_actions.tools.action.isVisible()
    assert not window.toolbar_actions.tools.button.isVisible()


async def test_a_settings_save_and_the_trash_redraw_the_button(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    win = await opened(home_with_servers(tmp_path, wire_server.url))
    try:
        tools = win.toolbar_actions.tools
        item(win, "files").trigger()
        await wait_until(lambda: tools.button.text() == "Tools 1/3")
        settings = win.session.settings
        servers = dict(settings.tool_servers)
        servers["clock"] = replace(servers["clock"], enabled=False)
        win.dialogs.save_settings(replace(settings, tool_servers=servers))
        assert tools.button.text() == "Tools 0/3"
        assert entries(win)[0] == ("clock", False, False)
        assert tools.button.isEnabled()
        # A conversation in the Trash takes no switch.
        win.session.trash(win.session.conversation.id)
        await wait_until(lambda: not tools.button.isEnabled())
        assert win.session.trashed
    finally:
        await closed(win)

"""Settings → Tools (SPEC §12): the MCP servers of config.toml edited in the real window —
each one's state, a Test that starts the real server off the window's thread (its tools,
or why it failed with its last stderr lines, plain), the "Always allow" grants with
Remove — saved through config.toml's editing save, the window's tools following."""

from __future__ import annotations

import shlex
from pathlib import Path

from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from ikgui.config.loading import load_settings
from ikgui.ui.settings.dialog import SettingsDialog
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.mcp_servers import config_table, faulty_server, time_server
from tests.support.waiting import wait_until
from tests.support.wire_server import WireServer
from tests.ui.test_window import closed, opened, write_config

__all__ = ["wire_server", "wire_server_session"]


def press_ok(dialog: SettingsDialog) -> None:
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


def home_with_time(tmp_path: Path, url: str) -> Path:
    home = tmp_path / "home"
    write_config(home, url)
    table = config_table(time_server()) + 'always_allow = ["get_current_time"]\n'
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write("\n# the clock\n" + table)
    return home


async def test_test_shows_tools_and_a_failure_with_its_stderr_plainly(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    win = await opened(home_with_time(tmp_path, wire_server.url))
    try:
        dialog = win.open_settings("tools")
        page = dialog.tools_page
        assert dialog.current_page() == "tools" and page.editor.names() == ["time"]
        assert page.state_view.toPlainText().startswith("Not started yet")
        page.test_button.click()
        await wait_until(lambda: not page.testing, timeout=60)
        assert page.test_result.text() == "It started."
        state = page.state_view.toPlainText()
        assert state.startswith("Running, 2 tools:") and "  get_current_time" in state
        # A server that fails at start: why, and its last lines, as plain text.
        page.editor.add()
        broken = faulty_server("broken", "--crash-at-start")
        page.command_edit.setText(broken.command or "")
        page.command_edit.textEdited.emit(page.command_edit.text())
        page.args_edit.setText(shlex.join(broken.args))
        page.args_edit.textEdited.emit(page.args_edit.text())
        page.test_button.click()
        await wait_until(lambda: not page.testing, timeout=60)
        assert page.test_result.text() == "It did not start."
        failed = page.state_view.toPlainText()
        assert failed.startswith("Failed: ")
        assert "faulty: cannot start: the configuration is broken" in failed
        assert "\x1b" not in failed and "\x07" not in failed  # controls shown, not obeyed
        dialog.reject()
    finally:
        await closed(win)


async def test_grants_removed_and_servers_added_are_saved_and_used(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = home_with_time(tmp_path, wire_server.url)
    config = home / "config.toml"
    win = await opened(home)
    try:
        # OK with nothing changed keeps config.toml as it is (the servers are not dropped).
        text = config.read_text("utf-8")
        press_ok(win.open_settings("general"))
        assert config.read_text("utf-8") == text
        dialog = win.open_settings("tools")
        page = dialog.tools_page
        assert [page.grants.item(i).text() for i in range(page.grants.count())] == [
            "get_current_time"
        ]
        page.remove_grant.click()
        assert page.grants.count() == 0
        page.editor.add()
        page.command_edit.setText("mcp-server-nothing")
        page.command_edit.textEdited.emit("mcp-server-nothing")
        page.timeout_edit.setText("abc")
        page.timeout_edit.textEdited.emit("abc")
        press_ok(dialog)
        assert dialog.isVisible() and "time limit must be a number" in dialog.error_label.text()
        page.timeout_edit.setText("5")
        page.timeout_edit.textEdited.emit("5")
        press_ok(dialog)
        assert not dialog.isVisible()
        saved = load_settings(config)
        assert saved.tool_servers["time"].always_allow == ()
        assert saved.tool_servers["server-1"].command == "mcp-server-nothing"
        assert saved.tool_servers["server-1"].timeout == 5
        assert "# the clock" in config.read_text("utf-8")  # comments kept
        assert win.session.tools is not None
        assert [s.name for s in win.session.tools.host.states()] == ["time", "server-1"]
    finally:
        await closed(win)

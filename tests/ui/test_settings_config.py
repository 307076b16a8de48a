"""Settings → OK keeps config.toml as the user wrote it (issue 20 item 3): untouched, the
file stays byte for byte; one field changed, one line changes; every agent setting the
config accepts has a control, so none is lost on the way through the dialog."""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QWidget
from pytestqt.qtbot import QtBot

from ikgui.config.loading import load_settings
from ikgui.config.saving import agent_fields
from ikgui.domain.settings import AgentSettings
from ikgui.local.keys import KeyStore
from ikgui.ui.settings.agents import CONTROLS
from ikgui.ui.settings.dialog import SettingsDialog
from ikgui.ui.settings.drafts import tools_value
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.memkeyring import MemoryKeyring
from tests.support.wire_server import WireServer
from tests.ui.test_settings_dialog import delete_dialogs, never_called, owned_dialogs
from tests.ui.test_window import closed, opened

__all__ = ["delete_dialogs", "wire_server", "wire_server_session"]

CONFIG = """\
# Hand-written: the Settings dialog must keep every line of this.

[defaults]
provider = "local"   # the box under the desk
model = "mock-gpt"
agent = "writer"
mood = "calm"        # no ikgui key: kept

[providers.local]
kind = "openai"
base_url = "{url}/v1"
note = "ask Bob for the GPU"

# Agents below.
[agents.writer]
system_prompt = "You write short, plain sentences."
provider = "local"
model = "mock-gpt"
auto_title = "model"   # the model titles it after the first reply


[agents.plain]
prompt_mode = "off"

[experiments]
colour = "teal"
"""


def changed_lines(before: str, after: str) -> list[str]:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def press_ok(dialog: SettingsDialog) -> None:
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


async def test_ok_untouched_keeps_the_file_and_one_change_is_one_line(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = home / "config.toml"
    text = CONFIG.format(url=wire_server.url)
    config.write_text(text, "utf-8")
    win = await opened(home, check_timeout=0.5)
    try:
        dialog = win.open_settings("general")
        press_ok(dialog)
        assert not dialog.isVisible()
        assert config.read_text("utf-8") == text
        assert win.session.settings.agents["writer"].auto_title == "model"

        dialog = win.open_settings("agents")
        page = dialog.agents_page
        page.editor.list.setCurrentRow(0)
        assert page.current is not None and page.current.name == "writer"
        page.model_edit.setFocus()
        page.model_edit.selectAll()
        qtbot.keyClicks(page.model_edit, "mock-mini")
        press_ok(dialog)
        assert changed_lines(text, config.read_text("utf-8")) == [
            '-model = "mock-gpt"',
            '+model = "mock-mini"',
        ]
        assert config.read_text("utf-8").count('model = "mock-gpt"') == 1  # [defaults]'
        assert win.session.settings.agents["writer"].model == "mock-mini"
    finally:
        await closed(win)


def test_every_agent_setting_of_the_config_has_a_control(
    tmp_path: Path, qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    """Each key an [agents.NAME] table accepts, set away from its default, is shown by a
    control of the Agents page and comes back from OK unchanged."""
    keys = list(agent_fields(AgentSettings("probe")))
    assert {"name", *keys} == {f.name for f in dataclasses.fields(AgentSettings)}
    assert set(CONTROLS) == {"name", *keys}
    config = tmp_path / "config.toml"
    config.write_text(
        '[providers.ollama]\nkind = "ollama"\nbase_url = "http://localhost:11434"\n\n'
        '[providers.other]\nkind = "openai"\nbase_url = "http://localhost:1234/v1"\n\n'
        '[agents.writer]\nsystem_prompt = "Write."\nprovider = "other"\nmodel = "m"\n'
        'prompt_mode = "json"\nauto_title = "model"\ntools = ["time", "files.read_file"]\n',
        "utf-8",
    )
    settings = load_settings(config)
    assert settings.problems == []
    writer = settings.agents["writer"]
    for key in keys:  # the config accepted each one (none fell back to its default)
        assert getattr(writer, key) != getattr(AgentSettings("writer"), key), key
    saved: list[object] = []
    dialog = SettingsDialog(settings, KeyStore(), never_called, saved.append, page="agents")
    owned_dialogs.append(dialog)
    dialog.show()
    page = dialog.agents_page
    shown = {
        "system_prompt": page.prompt_edit.toPlainText(),
        "provider": page.provider_combo.currentText(),
        "model": page.model_edit.text(),
        "prompt_mode": page.mode_combo.currentData(),
        "auto_title": page.title_combo.currentData(),
        "tools": tools_value(page.tools_edit.text()),
    }
    for key in keys:
        control = getattr(page, CONTROLS[key])
        assert isinstance(control, QWidget) and control.isVisibleTo(page), key
        assert shown[key] == getattr(writer, key), key
    press_ok(dialog)
    assert saved and saved[0].agents == settings.agents  # type: ignore[attr-defined]


def test_the_titles_control_changes_an_agents_auto_title(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    from tests.ui.test_settings_dialog import Harness

    h = Harness(qtbot, KeyStore())
    h.dialog.open_page("agents")
    page = h.dialog.agents_page
    page.editor.list.setCurrentRow(0)  # coder
    page.title_combo.setFocus()
    qtbot.keyClick(page.title_combo, Qt.Key.Key_Down)  # "Written by the model…"
    h.ok()
    assert h.saved[0].agents["coder"].auto_title == "model"
    assert h.saved[0].agents["painter"].auto_title == "words"

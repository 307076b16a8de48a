"""The Settings dialog never waits for the keyring on the GUI thread (issue 22 item 4):
a provider's key line, the no-keyring notice, "Test connection" and OK ask the key store
from worker threads; with a keyring that does not answer, the dialog goes on taking
typing, and closes once the keys are stored."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from PySide6.QtWidgets import QDialog, QLabel
from pytestqt.qtbot import QtBot

from ikgui.config.target import LOOKING_UP
from ikgui.domain.settings import ProviderSettings
from ikgui.local.keys import KeyStore
from ikgui.storage import open_store
from ikgui.ui.settings.key_words import LOOKING
from tests.support.hangkeyring import HangingKeyring
from tests.support.memkeyring import MemoryKeyring
from tests.ui.conftest import wait_until
from tests.ui.store_window import window_over
from tests.ui.test_settings_dialog import Harness, delete_dialogs
from tests.ui.test_window import closed, quiet, write_config

__all__ = ["delete_dialogs"]


def keyring_callers(keys: KeyStore) -> list[int]:
    """The threads that wait for the key store's keyring calls."""
    waited: list[int] = []
    call = keys._call

    def recorded(*args: object) -> object:
        waited.append(threading.get_ident())
        return call(*args)  # type: ignore[arg-type]

    keys._call = recorded  # type: ignore[method-assign]
    return waited


@pytest.fixture
def hanging_keyring() -> Iterator[HangingKeyring]:
    previous = keyring.get_keyring()
    backend = HangingKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        backend.release()
        keyring.set_keyring(previous)


def test_the_key_line_forget_and_ok_ask_the_keyring_off_the_gui_thread(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    keys = KeyStore()
    memory_keyring.secrets[("ikgui", "router")] = "sk-old"
    waited = keyring_callers(keys)
    h = Harness(qtbot, keys)
    h.dialog.open_page("providers", "router")
    h.answered()
    assert "stored in the system keyring" in h.providers.key_status.text()
    assert not h.providers.notice.isVisible()
    h.providers.forget_button.click()
    h.type_into(h.providers.name_edit, "openrouter")  # renamed: its key moves too
    h.dialog.open_page("providers", "ollama")
    h.type_into(h.providers.key_edit, "sk-ollama")
    h.ok()
    assert h.dialog.result() == QDialog.DialogCode.Accepted
    assert memory_keyring.secrets == {("ikgui", "ollama"): "sk-ollama"}
    assert waited and threading.get_ident() not in waited


async def test_test_connection_asks_for_the_stored_key_off_the_gui_thread(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    keys = KeyStore()
    memory_keyring.secrets[("ikgui", "router")] = "sk-stored"
    waited = keyring_callers(keys)
    sent: list[str | None] = []

    async def succeed(provider: ProviderSettings, key: str | None) -> list[str]:
        sent.append(key)
        return ["m"]

    h = Harness(qtbot, keys, succeed)
    h.dialog.open_page("providers", "router")
    h.providers.test_button.click()
    await wait_until(lambda: h.providers.test_result.text().startswith("Connected"))
    assert sent == ["sk-stored"]
    assert waited and threading.get_ident() not in waited


def test_a_keyring_that_does_not_answer_leaves_the_dialog_taking_typing(
    qtbot: QtBot, memory_keyring: MemoryKeyring, hanging_keyring: HangingKeyring
) -> None:
    keys = KeyStore(seconds=600)  # (released by the test, never timed out)
    h = Harness(qtbot, keys)
    h.dialog.open_page("providers", "router")
    qtbot.waitUntil(lambda: bool(hanging_keyring.asked))
    assert h.providers.key_status.text() == LOOKING
    assert not h.providers.forget_button.isEnabled()
    h.type_into(h.providers.url_edit, "http://127.0.0.1:9/v1")
    assert h.providers.url_edit.text() == "http://127.0.0.1:9/v1"
    h.type_into(h.providers.key_edit, "sk-typed")
    asked = len(hanging_keyring.asked)
    h.dialog.buttons.button(h.dialog.buttons.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: len(hanging_keyring.asked) > asked)  # storing the key
    assert h.dialog.isVisible() and not h.dialog.buttons.isEnabled()
    h.dialog.reject()  # Esc while the keys are stored: the settings still arrive
    assert h.dialog.isVisible() and not h.emitted
    hanging_keyring.release()
    qtbot.waitUntil(lambda: h.dialog.result() == QDialog.DialogCode.Accepted)
    assert h.emitted and h.emitted[0].providers["router"].base_url == "http://127.0.0.1:9/v1"


async def test_settings_on_a_postgresql_window_ask_where_its_password_comes_from_off_the_gui_thread(
    pg_url: str, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    home = tmp_path / "home"
    write_config(home, "http://127.0.0.1:9")
    window = window_over(open_store(pg_url), home)
    window.show()
    await quiet(window)
    waited = keyring_callers(window.services.keys)
    try:
        dialog = window.dialogs.open_settings("general")
        password = dialog.findChild(QLabel, "storePassword")
        assert password is not None
        await wait_until(lambda: password.text() != LOOKING_UP)
        assert password.text().startswith("none stored")
        assert waited and threading.get_ident() not in waited
        dialog.reject()
    finally:
        await closed(window)

"""Settings → General names the store in use (issue 14 item 1), read-only, never with a
password; a broken store choice stops the window from opening on the SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

from ikgui.app.root import build_window
from ikgui.config.loading import load_settings, save_settings
from ikgui.config.target import store_summary
from ikgui.domain.errors import StorageError
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.local.keys import KeyStore
from ikgui.storage import open_store
from ikgui.ui.settings.dialog import SettingsDialog
from ikgui.ui.settings.general import STORE_HINT
from ikgui.ui.window.main_window import MainWindow
from tests.ui.test_window import closed, opened

SECRET = "pa55-w0rd-secret"


def _general(win: MainWindow) -> tuple[str, str | None, list[str]]:
    dialog = win.open_settings("general")
    try:
        page = dialog.general_page
        password = page.findChild(QLabel, "storePassword")
        texts = [label.text() for label in page.findChildren(QLabel)]
        assert page.store_label is not None
        assert page.store_label.textFormat().name == "PlainText"
        return page.store_label.text(), password.text() if password else None, texts
    finally:
        dialog.reject()


async def test_general_shows_the_sqlite_file_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("IKGUI_DATABASE_URL", raising=False)
    home = tmp_path / "home"
    win = await opened(home, check_timeout=0.3)
    try:
        store, password, texts = _general(win)
        assert store == f"SQLite {home / 'ikgui.db'}"
        assert password is None
        assert STORE_HINT in texts
    finally:
        await closed(win)


def _dialog(settings: Settings, store: tuple[str, str | None] | None, saved: Path) -> Any:
    async def no_test(config: ProviderSettings, key: str | None) -> list[str]:
        return []

    return SettingsDialog(
        settings,
        KeyStore(),
        no_test,
        lambda new: save_settings(new, saved),
        page="general",
        store=store,
    )


def test_general_shows_the_postgresql_store_and_its_password_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[storage]\npassword_env = "IKGUI_T_PW"\n', "utf-8")
    monkeypatch.setenv("IKGUI_T_PW", SECRET)  # the trust role ignores it
    settings = load_settings(config)
    with open_store(pg_url + "?sslmode=disable") as store:
        summary = store_summary(store, settings, KeyStore())
    dialog = _dialog(settings, summary, config)
    try:
        page = dialog.general_page
        assert page.store_label is not None
        assert page.store_label.text() == "PostgreSQL ikgui@" + pg_url.split("@", 1)[1]
        password = page.findChild(QLabel, "storePassword")
        assert password.text() == "from the environment variable IKGUI_T_PW"
        assert all(SECRET not in label.text() for label in page.findChildren(QLabel))
    finally:
        dialog.reject()


def test_saving_settings_keeps_the_storage_table(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    url = "postgresql://me@db.example:6543/team?sslmode=require"
    config.write_text(f'[storage]\nurl = "{url}"\npassword_env = "IKGUI_T_PW"\n', "utf-8")
    dialog = _dialog(load_settings(config), ("PostgreSQL me@db.example:6543/team", None), config)
    dialog.general_page.text_size_spin.setValue(120)
    dialog.save()
    saved = load_settings(config)
    assert (saved.storage_url, saved.storage_password_env) == (url, "IKGUI_T_PW")
    assert saved.text_size == 120 and saved.problems == []


@pytest.mark.parametrize(
    "config", ['[storage]\nurl = "mysql://me@host/db"\n', "storage = 'postgresql://me@h/db'\n"]
)
def test_a_broken_choice_stops_the_window_before_any_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    monkeypatch.delenv("IKGUI_DATABASE_URL", raising=False)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(config, "utf-8")
    with pytest.raises(StorageError) as raised:  # main() shows it in the "cannot start" box
        build_window(home)
    assert "does not fall back to the SQLite file" in raised.value.message
    assert not (home / "ikgui.db").exists()

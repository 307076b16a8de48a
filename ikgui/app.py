"""Composition root: the QApplication, the qasync loop, the store, providers and keys,
the session, and the window; shut down cleanly. Nothing imports this module."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from ikgui.config import load_settings, save_settings
from ikgui.domain.errors import IkguiError
from ikgui.domain.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.keys import KeyStore
from ikgui.paths import resolve
from ikgui.ui.loop import application, new_loop
from ikgui.ui.main_window import MainWindow, WindowServices
from ikgui.wiring import Providers, recover


async def test_connection(config: ProviderSettings, key: str | None) -> list[str]:
    """List the provider's models: the Settings dialog's "Test connection"."""
    from ikgui.providers import make_provider

    provider = make_provider(config, key, connect_timeout=5.0, first_byte_timeout=15.0)
    try:
        return await provider.list_models()
    finally:
        await provider.aclose()


def build_window(home: Path | None = None, check_timeout: float = 4.0) -> MainWindow:
    """The real window over the store and providers found under ``home``."""
    from ikgui.storage import open_store

    paths = resolve(home)
    settings = load_settings(paths.config)
    store = open_store(paths.database)
    recover(store)
    keys = KeyStore()
    providers = Providers(settings, keys)
    session = Session(
        store,
        settings,
        provider_factory=providers,
        model_lister=providers.known_models,
        export_dir=paths.exports,
    )
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    ui_state = QSettings(str(paths.config_dir / "window.ini"), QSettings.Format.IniFormat)

    def save(new: Settings) -> None:
        save_settings(new, paths.config)
        providers.settings = new

    services = WindowServices(
        session=session,
        keys=keys,
        refresh_models=providers.refresh_models,
        test_connection=test_connection,
        save_settings=save,
        ui_state=ui_state,
        problems=list(settings.problems),
        check_timeout=check_timeout,
        on_closed=store.close,
    )
    window = MainWindow(services)
    window.start()
    return window


def window_theme(home: Path | None) -> str:
    return load_settings(resolve(home).config).theme


def open_main_window(home: Path | None = None) -> MainWindow:
    """Build the window over ``home`` (as ``IKGUI_HOME`` would), show it and return it.

    It runs on the current qasync loop; a test awaits ``window.shutdown()`` (or closes
    the window) when done.
    """
    from ikgui.ui.icons import app_icon
    from ikgui.ui.style import apply_style

    app = application()
    if not app.property("ikgui_styled"):
        apply_style(app, window_theme(home))
        app.setWindowIcon(app_icon())
        app.setProperty("ikgui_styled", True)
    window = build_window(home)
    window.show()
    return window


def main(argv: list[str]) -> int:
    app = application([sys.argv[0], *argv])
    app.setApplicationName("ikgui")
    app.setApplicationDisplayName("ikgui")
    app.setDesktopFileName("ikgui")
    app.setQuitOnLastWindowClosed(False)
    loop = new_loop()
    asyncio.set_event_loop(loop)
    try:
        window = open_main_window()
    except IkguiError as exc:
        QMessageBox.critical(None, "ikgui cannot start", exc.message)
        return 1
    closed = loop.create_future()
    previous = window.services.on_closed

    def finished() -> None:
        if previous is not None:
            previous()
        if not closed.done():
            closed.set_result(None)

    window.services.on_closed = finished
    with loop:
        loop.run_until_complete(closed)
    return 0

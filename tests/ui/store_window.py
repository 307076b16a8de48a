"""The real main window over a store the test opened (a PostgreSQL one, say): what
``ikgui.app.build_window`` builds, with the store given instead of found under ``home``
(so two windows can share one database, or one window a database on a test server)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from ikgui.app import settings_saver, test_connection
from ikgui.config import load_settings
from ikgui.domain.command_handlers import default_registry
from ikgui.domain.ports import Store
from ikgui.domain.session import Session
from ikgui.keys import KeyStore
from ikgui.paths import resolve
from ikgui.ui.main_window import MainWindow, WindowServices
from ikgui.wiring import Providers, recover
from tests.ui.test_window import quiet


def window_over(store: Store, home: Path, check_timeout: float = 2.0) -> MainWindow:
    paths = resolve(home)
    settings = load_settings(paths.config)
    recover(store)
    keys = KeyStore()
    providers = Providers(settings, keys, keep_clients=True)
    session = Session(
        store,
        settings,
        registry=default_registry(),
        provider_factory=providers,
        model_lister=providers.known_models,
        export_dir=paths.exports,
    )
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    ui_state = QSettings(str(paths.config_dir / "window.ini"), QSettings.Format.IniFormat)
    services = WindowServices(
        session=session,
        keys=keys,
        refresh_models=providers.refresh_models,
        test_connection=test_connection,
        save_settings=settings_saver(session, paths.config, providers),
        ui_state=ui_state,
        check_timeout=check_timeout,
        on_closed=store.close,  # type: ignore[attr-defined]
        close_providers=providers.aclose,
    )
    window = MainWindow(services)
    window.start()
    return window


async def opened_over(store: Store, home: Path) -> MainWindow:
    """Shown and quiet (see ``tests.ui.test_window.opened``)."""
    window = window_over(store, home)
    window.show()
    await quiet(window)
    return window

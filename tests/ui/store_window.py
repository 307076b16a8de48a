"""The real main window over a store the test opened (a PostgreSQL one, say): what
``ikgui.app.root.build_window`` builds, with the store given instead of found under ``home``
(so two windows can share one database, or one window a database on a test server)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ikgui.app.root import build_window
from ikgui.storage import PeeweeStore
from ikgui.ui.window.main_window import MainWindow
from tests.ui.test_window import quiet


def window_over(store: PeeweeStore, home: Path, check_timeout: float = 2.0) -> MainWindow:
    return build_window(home, check_timeout, store=store)


async def opened_over(store: PeeweeStore, home: Path) -> MainWindow:
    """Shown and quiet (see ``tests.ui.test_window.opened``)."""
    window = window_over(store, home)
    window.show()
    await quiet(window)
    return window


def terminal_run(window: MainWindow, conv_id: str, text: str) -> subprocess.Popen[str]:
    """``ikgui run -c conv_id text`` started in another process on the window's home (its
    stderr kept for the test to show)."""
    home = Path(window.store.path).parent  # type: ignore[attr-defined]
    return subprocess.Popen(
        [sys.executable, "-m", "ikgui", "run", "-c", conv_id, text],
        env=dict(os.environ, IKGUI_HOME=str(home)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )

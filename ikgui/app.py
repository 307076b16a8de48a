"""Composition root: opens the store and shows the window.

Until the full window lands (issue 4) this shows a placeholder that lists the
conversations and says how to use the command line.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from ikgui.config import load_settings
from ikgui.domain.errors import IkguiError
from ikgui.domain.listing import format_listing
from ikgui.paths import resolve


def open_main_window(home: Path | None = None) -> QMainWindow:
    """Build the window over the store found under ``home`` (as ``IKGUI_HOME``) and show it."""
    from ikgui.storage import open_store

    paths = resolve(home)
    settings = load_settings(paths.config)
    window = QMainWindow()
    window.setObjectName("mainWindow")
    window.setWindowTitle("ikgui")
    body = QWidget()
    layout = QVBoxLayout(body)
    notice = QLabel(
        "<h2>ikgui</h2><p>The conversation window is being built. Meanwhile the same engine "
        "runs from the command line: <code>ikgui run -c /mark first</code>, "
        "<code>ikgui conv list</code>, <code>ikgui conv show -l</code>.</p>"
    )
    notice.setWordWrap(True)
    layout.addWidget(notice)
    listing = QPlainTextEdit()
    listing.setObjectName("conversationList")
    listing.setReadOnly(True)
    try:
        store = open_store(paths.database)
        try:
            text = format_listing(store.list_conversations(200), time.time())
        finally:
            store.close()
    except IkguiError as exc:
        text = exc.line
    if settings.problems:
        text = "\n".join(f"Warning: {p}" for p in settings.problems) + "\n\n" + text
    listing.setPlainText(text)
    layout.addWidget(listing)
    window.setCentralWidget(body)
    window.resize(900, 600)
    window.show()
    return window


def main(argv: list[str]) -> int:
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    window = open_main_window()
    code = app.exec()
    window.close()
    return code

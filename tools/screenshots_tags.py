#!/usr/bin/env python3
"""Screenshots of the sidebar's tag filter chips, the Manage tags dialog and the tag editor,
offscreen,
in light and dark (issue 12's README pictures).

    .venv/bin/python tools/screenshots_tags.py [OUT_DIR]     # default resources/screenshots
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ikgui.domain.events import Conversation  # noqa: E402
from ikgui.storage import SqliteStore, open_store  # noqa: E402

ROWS = [
    ("Rate limiter for the public API", "coder", ("api", "work")),
    ("Quarterly planning notes", None, ("work", "planning")),
    ("Retry policy with jitter", "coder", ("api", "work", "backend")),
    ("Watercolour fox, misty morning", "painter", ("art",)),
    ("Schema migration v3 review", "coder", ("backend", "work")),
    ("Birthday poem for Ana", None, ("personal",)),
    ("Pagination: keyset vs offset", "coder", ("api", "backend")),
    ("Holiday itinerary, Lisbon", None, ("personal", "travel")),
    ("OpenAPI spec cleanup", "coder", ("api", "work", "docs")),
    ("Onboarding doc outline", None, ("docs", "work")),
]


def fill(store: SqliteStore) -> None:
    now = time.time()
    for i, (title, agent, tags) in enumerate(ROWS):
        when = now - 3600 * (i * 5 + 1)
        store.insert_conversation(
            Conversation(
                id=f"{agent or 'chat'}-{i:04d}",
                title=title,
                agent=agent,
                tags=tags,
                created_at=when,
                updated_at=when,
            )
        )
    store.update_conversation("chat-0005", trashed_at=now)


def main() -> None:
    from PySide6.QtWidgets import QApplication

    from ikgui.ui.loop import application
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.style import apply_style

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    app = application()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "ikgui.db")
        fill(store)
        for theme in ("light", "dark"):
            apply_style(app, theme)
            bar = ConversationSidebar(store)
            bar.resize(340, 560)
            bar.show()
            bar.tag_filters.choose(["api", "work"])
            for _ in range(5):
                QApplication.processEvents()
            bar.grab().save(str(out / f"tag-filter-{theme}.png"))
            dialog = bar.open_manage_tags()
            dialog.select("backend")
            dialog.name_edit.setText("api")
            for _ in range(5):
                QApplication.processEvents()
            dialog.grab().save(str(out / f"manage-tags-{theme}.png"))
            dialog.close()
            bar.edit_tags("coder-0002")
            editor = bar.tag_editor
            assert editor is not None
            editor.line.setText("rel")
            for _ in range(5):
                QApplication.processEvents()
            editor.grab().save(str(out / f"tag-editor-{theme}.png"))
            editor.reject()
            bar.close()
            print(f"wrote {out}/tag-filter-{theme}.png and manage-tags-{theme}.png")
        store.close()


if __name__ == "__main__":
    main()

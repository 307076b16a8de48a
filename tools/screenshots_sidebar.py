#!/usr/bin/env python3
"""Screenshots of the sidebar's conversation list (the list alone: the folder tree above
it has pictures of its own), offscreen, in light and dark: the
groups under their headers (pins first), a conversation's forks shown under it, tags as
chips, a row selected (``sidebar-groups-<theme>.png``).

    .venv/bin/python tools/screenshots_sidebar.py [OUT_DIR]   # default resources/screenshots
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

HOUR = 3600.0
DAY = 24 * HOUR
#: (id, title, agent, tags, how long ago, parent, pinned)
ROWS = [
    ("chat-rel", "Release notes for 2.4", "writer", ("docs",), 30 * HOUR, None, True),
    ("chat-pg", "Postgres index bloat", "coder", ("work/db",), 20 * DAY, None, True),
    ("chat-wal", "SQLite WAL for the app", "writer", ("work/db", "design"), 2 * HOUR, None, False),
    ("chat-net", "WAL on network drives?", "writer", ("work/db",), 1 * HOUR, "chat-wal", False),
    ("chat-jrn", "Variant: rollback journal", "writer", ("work/db",), 90 * 60, "chat-wal", False),
    (
        "chat-book",
        "Book notes: Designing Data-Intensive Apps",
        None,
        ("reading",),
        3e4,
        None,
        False,
    ),
    ("chat-re", "Regex for ISO dates", "coder", ("code",), 4 * HOUR, None, False),
    ("chat-trip", "Trip planning: Lofoten in March", None, ("travel",), 5 * HOUR, None, False),
    ("chat-flaky", "Flaky test in the sync worker", "coder", ("bug", "ci"), 1.2 * DAY, None, False),
    ("chat-lis", "Trip to Lisbon: three-day plan", None, ("travel",), 3 * DAY, None, False),
    ("chat-rx2", "Regex for ISO weeks", "coder", (), 5 * DAY, None, False),
    ("chat-cv", "Cover letter draft", "writer", ("jobs",), 12 * DAY, None, False),
    ("chat-bread", "Sourdough hydration maths", None, ("home",), 40 * DAY, None, False),
]


def fill(store: SqliteStore) -> None:
    now = time.time()
    for conv_id, title, agent, tags, ago, parent, pinned in ROWS:
        when = now - ago
        store.insert_conversation(
            Conversation(
                id=conv_id,
                title=title,
                agent=agent,
                tags=tags,
                parent=parent,
                created_at=when,
                updated_at=when,
                pinned=pinned,
            )
        )
        for n in range(2 + len(title) % 4):
            kind = "user" if n % 2 == 0 else "assistant"
            store.append_event(conv_id, kind, f"message {n}", created_at=when)


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
            bar.resize(320, 760)
            bar.show()
            bar.show_forks("chat-wal")
            bar.set_current("chat-net")
            for _ in range(10):
                QApplication.processEvents()
            bar.list_area.grab().save(str(out / f"sidebar-groups-{theme}.png"))
            print(f"wrote {out}/sidebar-groups-{theme}.png")
            bar.close()
        store.close()


if __name__ == "__main__":
    main()

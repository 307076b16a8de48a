#!/usr/bin/env python3
"""Screenshots of a fork tree in the sidebar (fork titles, "12 msgs, 2 own", indentation
stopping after three levels with "branch of <title>") and of the Branches view, offscreen,
in light and dark (issue 12 item 3's README pictures).

    .venv/bin/python tools/screenshots_branches.py [OUT_DIR]   # default resources/screenshots
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ikgui.domain.events import Kind  # noqa: E402
from ikgui.domain.session.session import Session  # noqa: E402
from ikgui.storage import SqliteStore, open_store  # noqa: E402

EXCHANGES = [
    ("Plan a watercolour of a fox on a misty morning", "Start with a pale wash of grey-blue."),
    ("Which paper should I use?", "Cold-pressed, 300 gsm, holds the washes well."),
    ("How do I keep the mist soft?", "Work wet-in-wet and lift with a damp brush."),
]


def fill(store: SqliteStore) -> str:
    """A root with three exchanges and three forks, the first a chain five forks deep;
    returns the first fork (the Branches view shows its family)."""
    session = Session(store)
    for question, answer in EXCHANGES:
        session.append(Kind.USER, question)
        session.append(Kind.ASSISTANT, answer)
    root = session.conversation.id
    first = session.fork().id
    session.append(Kind.USER, "Try it in gouache instead")
    session.append(Kind.ASSISTANT, "Gouache dries matte: layer light over dark.")
    for step in range(4):
        session.fork()
        session.append(Kind.USER, f"Variation {step + 1}: warmer light")
    session.open(root)
    session.fork()
    session.update_fields(title="Fox at dusk instead")
    session.append(Kind.USER, "Make it dusk")
    session.open(root)
    session.fork(prompt="What about a heron?")
    return first


def main() -> None:
    from PySide6.QtWidgets import QApplication

    from ikgui.ui.branches_view import BranchesView
    from ikgui.ui.loop import application
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.style import apply_style

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    app = application()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "ikgui.db")
        first = fill(store)
        for theme in ("light", "dark"):
            apply_style(app, theme)
            bar = ConversationSidebar(store)
            bar.resize(360, 600)
            bar.show()
            bar.view.expandAll()
            for _ in range(10):
                QApplication.processEvents()
                bar.view.expandAll()
            bar.grab().save(str(out / f"fork-tree-{theme}.png"))
            view = BranchesView(store, first)
            view.resize(860, 300)
            view.show()
            for _ in range(5):
                QApplication.processEvents()
            view.grab().save(str(out / f"branches-view-{theme}.png"))
            view.close()
            bar.close()
            print(f"wrote {out}/fork-tree-{theme}.png and branches-view-{theme}.png")
        store.close()


if __name__ == "__main__":
    main()

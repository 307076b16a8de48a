"""The sidebar with its folder tree (issue 26's Speed section) on 10,000 conversations with
1,000 tags in a three-level tree (``bench_folders.make_history``), offscreen, on SQLite and
(``--pg`` an empty database's URL, or ``--pg-server`` a server of its own) PostgreSQL:

    .venv/bin/python benchmarks/bench_folder_tree.py [--pg URL | --pg-server] [--runs 5]

Each a median of ``--runs`` (the worst of them for the frames), the sidebar sized as the
window's (300 x 720):

1. The folder tree filled (every folder's count, the smart folders' live counts).
2. Choosing a folder in the tree: the list filtered to its subtree (its first page read)
   and painted — target 50 ms.
3. With every page loaded (10,000 rows): a send's cost in the sidebar (its row moved to
   the top, the view laid out again, painted) — target 4 ms.
4. With every page loaded: the worst page step scrolling top to bottom — target 16 ms.
   4b. From the first page only: the worst page step scrolling to the last row, pages
   arriving as the view reaches the loaded end — target 16 ms.
5. End with only the first page loaded (the last page read from the oldest end, the view
   at the last row) — target 100 ms.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_folders import make_history  # noqa: E402

from ikgui.storage import open_store  # noqa: E402


def _ms(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _row(label: str, ms: float, target: float | None) -> None:
    if target is None:
        print(f"  {label:<58} {ms:8.1f} ms")
        return
    verdict = "ok" if ms <= target else "OVER"
    print(f"  {label:<58} {ms:8.1f} ms  target {target:g} {verdict}")


def measure(db: Path | str, runs: int) -> None:
    from ikgui.ui.loop import application
    from ikgui.ui.sidebar.panel import ConversationSidebar

    app = application()
    store = open_store(db)
    bar = ConversationSidebar(store)
    bar.resize(300, 720)
    bar.show()
    app.processEvents()
    view = bar.view

    def paint() -> None:
        app.processEvents()
        view.viewport().repaint()

    filled = [_ms(lambda: (bar._fill_folders(), paint())) for _ in range(runs)]
    _row("1. the folder tree filled (a reload; no target)", statistics.median(filled), None)
    chosen = []
    for i in range(runs):
        folder = f"t{1 + i % 9}/m{i % 10}"
        chosen.append(_ms(lambda f=folder: (bar.folders.choose("folder", f), paint())))  # type: ignore[misc]
        bar.folders.choose("all", "")
        paint()
    _row("2. choosing a folder (first page, painted)", statistics.median(chosen), 50)

    end = []
    for _ in range(runs):
        fresh = ConversationSidebar(store)  # its first page only
        fresh.resize(300, 720)
        fresh.show()
        app.processEvents()

        def to_end(b: Any = fresh) -> None:
            b.view.end_pressed.emit()
            b.view.scrollToBottom()
            app.processEvents()
            b.view.viewport().repaint()

        end.append(_ms(to_end))
        fresh.close()
    _row("5. End from the first page", statistics.median(end), 100)

    bar.model.fetch_all()
    paint()
    sends = []
    for i in range(runs):
        conv = bar.model.conversations()[500 + i]
        moved = dataclasses.replace(conv, updated_at=time.time() + i)
        sends.append(_ms(lambda c=conv, m=moved: (bar.model.refresh(c.id, m), paint())))  # type: ignore[misc]
    _row(
        f"3. a send's cost, every page loaded ({len(bar.model.conversations()):,} rows)",
        statistics.median(sends),
        4,
    )
    _row("4. worst page step scrolling, every page loaded", _worst_step(bar, app), 16)
    bar.close()
    lazy = []
    for _ in range(runs):
        fresh = ConversationSidebar(store)  # its first page only: pages come as it scrolls
        fresh.resize(300, 720)
        fresh.show()
        app.processEvents()
        lazy.append(_worst_step(fresh, app))
        fresh.close()
    _row("4b. worst page step scrolling as pages arrive", max(lazy), 16)
    store.close()


def _worst_step(bar: Any, app: Any) -> float:
    view = bar.view
    scroll = view.verticalScrollBar()
    scroll.setValue(0)
    worst = 0.0
    while scroll.value() < scroll.maximum():
        target = min(scroll.maximum(), scroll.value() + scroll.pageStep())
        worst = max(worst, _ms(lambda t=target: (scroll.setValue(t), view.viewport().repaint())))  # type: ignore[misc]
        app.processEvents()
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pg", help="an empty PostgreSQL database's URL")
    parser.add_argument("--pg-server", action="store_true", help="start a server of our own")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "ikgui.db"
        _measure_loaded(db, "SQLite", args.runs)
    if args.pg_server:
        from tests.support.pg_server import PgServer

        with PgServer() as server:
            _measure_loaded(server.create_database("ikgui_folder_tree"), "PostgreSQL", args.runs)
    elif args.pg:
        _measure_loaded(args.pg, "PostgreSQL", args.runs)


def _measure_loaded(location: Path | str, name: str, runs: int) -> None:
    """Load the history into the store at ``location`` (untimed), then measure."""
    with open_store(location) as store:
        make_history(store)
        if not isinstance(location, Path):  # as autovacuum would within its minute
            store.database.execute_sql("ANALYZE")
    print(f"{name}, the sidebar at 300 x 720 (medians; the worst frame for 4):")
    measure(location, runs)


if __name__ == "__main__":
    main()

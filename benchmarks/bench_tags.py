"""Tags on the 10,000-conversation database (made by ``make_db.py``), offscreen, against
issue 12's targets: filtering by two tags and renaming a tag used by 2,000 conversations
within 100 ms each, scrolling one page of the sidebar within 4 ms.

    .venv/bin/python benchmarks/bench_tags.py [--db /tmp/bench/ikgui.db] [--runs 11]

The database is copied to a temporary folder first (the benchmark writes to it). Set-up,
untimed: 2,000 live conversations get the tag ``bench2k``. Then, each a median of
``--runs``:

1. Store: the first page (100) of the conversations having two tags
   (``list_conversations(tags=[a, b])``), and the tag counts within that filter.
2. Sidebar: choosing the two tags (``tag_filters.choose``): the model reset, its first
   page, the box's counts and the chips, and the repaint — what a user waits for.
3. Rename ``bench2k`` (2,000 conversations) and back: the one transaction
   (``library.rename_tag``), then the sidebar's reload and repaint as the window does.
4. Merge: ``bench2k`` renamed onto a tag already in use (once: it cannot be undone).
5. Scrolling: ``fetch_all`` then the list scrolled top to bottom a page per step (rows
   with chips), as ``bench_window.py`` measures it.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ikgui.domain.library import conversations as library  # noqa: E402
from ikgui.storage import SqliteStore, open_store  # noqa: E402

DEFAULT_DB = Path("/tmp/bench/ikgui.db")
TAG_2K = "bench2k"
TARGET_MS = 100.0
SCROLL_TARGET_MS = 4.0


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def tag_2000(store: SqliteStore, seed: int = 1) -> None:
    ids = [c.id for c in store.list_conversations()]
    chosen = random.Random(seed).sample(ids, 2000)
    with store.transaction():
        for conv_id in chosen:
            conv = store.get_conversation(conv_id)
            assert conv is not None
            store.set_tags(conv_id, [*conv.tags, TAG_2K])


def two_tags(store: SqliteStore) -> tuple[str, str]:
    """The two tags whose pair matches the most live conversations (besides bench2k)."""
    counts = [(n, t) for t, n in store.tag_counts() if t != TAG_2K]
    first = max(counts)[1]
    within = [(n, t) for t, n in store.tag_counts([first]) if t not in (first, TAG_2K)]
    return first, max(within)[1]


def row(label: str, ms: float, target: float | None) -> None:
    verdict = "" if target is None else ("  ok" if ms <= target else "  OVER")
    limit = "" if target is None else f"  (target <= {target:g} ms)"
    print(f"{label:<62} {ms:8.2f} ms{limit}{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=DEFAULT_DB)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    if not args.db.exists():
        print(f"{args.db} is missing; making it...", flush=True)
        args.db.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "make_db.py"), str(args.db)])
    with tempfile.TemporaryDirectory(prefix="ikgui-bench-tags-") as tmp:
        db = Path(tmp) / "ikgui.db"
        shutil.copyfile(args.db, db)
        store = open_store(db)
        try:
            run(store, args.runs)
        finally:
            store.close()


def run(store: SqliteStore, runs: int) -> None:
    from PySide6.QtWidgets import QApplication

    from ikgui.ui.loop import application
    from ikgui.ui.sidebar.panel import ConversationSidebar

    tag_2000(store)
    a, b = two_tags(store)
    matching = len(store.list_conversations(tags=[a, b]))
    print(f"tags: {a} + {b} match {matching} conversations; {TAG_2K} is on 2,000")
    row(
        "1. store: first page with two tags",
        median_ms(lambda: store.list_conversations(100, tags=[a, b]), runs),
        None,
    )
    row(
        "   store: tag counts within the two tags",
        median_ms(lambda: store.tag_counts([a, b]), runs),
        None,
    )

    app = application()
    bar = ConversationSidebar(store)
    bar.resize(300, 720)  # the sidebar of the 1340x820 window
    bar.show()
    app.processEvents()
    view = bar.view

    def choose(tags: tuple[str, ...]) -> None:
        bar.tag_filters.choose(tags)
        app.processEvents()
        view.viewport().repaint()

    filter_times = []
    for _ in range(runs):
        choose(())
        start = time.perf_counter()
        choose((a, b))
        filter_times.append(time.perf_counter() - start)
    assert bar.model.rowCount() > 0
    row(
        "2. sidebar: filter by two tags (reset, page, counts, repaint)",
        statistics.median(filter_times) * 1000,
        TARGET_MS,
    )
    choose(())

    names = [TAG_2K, f"{TAG_2K}-renamed"]
    rename_times, reload_times = [], []
    for i in range(runs):
        old, new = names[i % 2], names[(i + 1) % 2]
        start = time.perf_counter()
        assert library.rename_tag(store, old, new).count == 2000
        renamed = time.perf_counter()
        bar.reload()
        app.processEvents()
        view.viewport().repaint()
        rename_times.append(renamed - start)
        reload_times.append(time.perf_counter() - renamed)
    row(
        "3. rename a tag on 2,000 conversations (one transaction)",
        statistics.median(rename_times) * 1000,
        None,
    )
    row("   then the sidebar's reload + repaint", statistics.median(reload_times) * 1000, None)
    total = statistics.median([r + s for r, s in zip(rename_times, reload_times, strict=True)])
    row("   rename + sidebar refresh", total * 1000, TARGET_MS)
    current = names[runs % 2]
    start = time.perf_counter()
    merged = library.rename_tag(store, current, a).count
    row(
        f"4. merge it onto '{a}' ({merged} conversations)",
        (time.perf_counter() - start) * 1000,
        TARGET_MS,
    )

    bar.model.fetch_all()
    app.processEvents()
    scroll = view.verticalScrollBar()
    scroll.setValue(0)
    view.viewport().repaint()
    steps = []
    value = 0
    while value < scroll.maximum():
        value = min(scroll.maximum(), value + scroll.pageStep())
        start = time.perf_counter()
        scroll.setValue(value)
        view.viewport().repaint()
        steps.append(time.perf_counter() - start)
    row(
        f"5. scroll one page ({len(steps)} steps, {len(bar.model.conversations()):,} rows), median",
        statistics.median(steps) * 1000,
        SCROLL_TARGET_MS,
    )
    row("   scroll one page, max", max(steps) * 1000, None)
    bar.close()
    QApplication.processEvents()


if __name__ == "__main__":
    main()

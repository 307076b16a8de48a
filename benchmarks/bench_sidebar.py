"""The sidebar alone on the 10,000-conversation database (made by ``make_db.py``),
offscreen, against issue 12's scroll target (≤ 4 ms per page step).

    .venv/bin/python benchmarks/bench_sidebar.py [--db /tmp/bench/ikgui.db] [--rounds 3]
        [--against /tmp/old-checkout]

Each measurement runs in a fresh subprocess on its own copy of the database (one that a
newer schema would migrate), the sidebar sized as the window's (300 x 720):

1. Open: constructing the sidebar (its first page) and its first paint.
2. Lazy scroll: from the top to the last row a page per step, as a user drags — the
   model reads a page whenever the view reaches the loaded end; each step is the
   scroll bar's move and a repaint (median and max; the steps that read a page are the
   max).
3. Loaded scroll: every row loaded (the lazy scroll read them all), top to bottom again.

``--against DIR`` runs the same in a checkout of other code (e.g. ``git worktree add
/tmp/old <commit>``), interleaved with this one, ``--rounds`` times each: old and new
under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DB = Path("/tmp/bench/ikgui.db")
TARGET_MS = 4.0


def measure(db: Path) -> dict[str, float]:
    """One series in this process (the code on ``sys.path`` first is measured)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from ikgui.storage import open_store
    from ikgui.ui.loop import application
    from ikgui.ui.sidebar.panel import ConversationSidebar

    app = application()
    store = open_store(db)
    start = time.perf_counter()
    bar = ConversationSidebar(store)
    bar.resize(300, 720)
    bar.show()
    app.processEvents()
    bar.view.viewport().repaint()
    opened = time.perf_counter() - start
    lazy = _scroll(bar, app)
    bar.model.fetch_all()  # (nothing left to read after the lazy scroll)
    app.processEvents()
    loaded = _scroll(bar, app)
    rows = len(bar.model.conversations())
    bar.close()
    store.close()
    return {
        "open": opened,
        "lazy_median": statistics.median(lazy),
        "lazy_max": max(lazy),
        "loaded_median": statistics.median(loaded),
        "loaded_max": max(loaded),
        "steps": len(loaded),
        "rows": rows,
    }


def _scroll(bar: object, app: object) -> list[float]:
    view = bar.view  # type: ignore[attr-defined]
    scroll = view.verticalScrollBar()
    scroll.setValue(0)
    view.viewport().repaint()
    steps = []
    while scroll.value() < scroll.maximum():
        target = min(scroll.maximum(), scroll.value() + scroll.pageStep())
        start = time.perf_counter()
        scroll.setValue(target)
        view.viewport().repaint()
        steps.append(time.perf_counter() - start)
        app.processEvents()  # type: ignore[attr-defined]
    return steps


def _child(src: Path, db: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="ikgui-bench-sidebar-") as tmp:
        copy = Path(tmp) / "ikgui.db"
        shutil.copyfile(db, copy)
        code = (
            f"import sys; sys.path.insert(0, {str(src)!r}); "
            f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); "
            "import json, bench_sidebar as b; from pathlib import Path; "
            f"print(json.dumps(b.measure(Path({str(copy)!r}))))"
        )
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def _report(name: str, runs: list[dict[str, float]]) -> None:
    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs) * 1000

    rows, steps = int(runs[0]["rows"]), int(runs[0]["steps"])
    print(f"{name}: {rows:,} rows, {steps} page steps, {len(runs)} runs (medians)")
    print(f"  1. open (first page + first paint)      {med('open'):8.1f} ms")
    print(f"  2. lazy scroll, per page step (median)  {med('lazy_median'):8.2f} ms")
    print(f"     lazy scroll, per page step (max)     {med('lazy_max'):8.1f} ms")
    lm = med("loaded_median")
    verdict = "ok" if lm <= TARGET_MS else "OVER"
    print(f"  3. loaded scroll, per page step (median) {lm:7.2f} ms  target {TARGET_MS} {verdict}")
    print(f"     loaded scroll, per page step (max)   {med('loaded_max'):8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=DEFAULT_DB)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, default=None, help="another checkout")
    args = parser.parse_args()
    if not args.db.exists():
        print(f"{args.db} is missing; making it...", flush=True)
        args.db.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "make_db.py"), str(args.db)])
    sources = {"this": ROOT}
    if args.against is not None:
        sources = {"against": args.against.resolve(), "this": ROOT}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in sources}
    for _ in range(args.rounds):
        for name, src in sources.items():
            results[name].append(_child(src, args.db))
    for name, runs in results.items():
        _report(f"{name} ({sources[name]})", runs)


if __name__ == "__main__":
    main()

"""The engine's figures on a database made by ``make_db.py`` (issue 2 targets).

Usage: ``python benchmarks/make_db.py /tmp/bench/ikgui.db`` then
``python benchmarks/bench_engine.py /tmp/bench/ikgui.db``. Prints, each the median of
several warm runs: ``ikgui conv list`` wall time (a new process, as a user runs it),
replay of the 10,000-event conversation, replay of the 50-deep fork chain, a two-word
full-text search, and the database size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_db import BIG_ID, CHAIN_IDS

from ikgui.domain.session.session import Session
from ikgui.domain.state.replay import replay_conversation
from ikgui.storage import open_store


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    home = args.path.parent
    env = dict(os.environ, IKGUI_HOME=str(home))
    cli = [sys.executable, "-m", "ikgui", "conv", "list"]

    def conv_list() -> None:
        subprocess.run(cli, env=env, check=True, stdout=subprocess.DEVNULL)

    def bare_python() -> None:
        subprocess.run([sys.executable, "-c", "pass"], check=True)

    rows = []
    rows.append(("ikgui conv list (all rows, new process)", median_ms(conv_list, 5), 500.0))
    rows.append(("  python -c pass (the floor)", median_ms(bare_python, 5), None))
    store = open_store(args.path)
    try:
        big = replay_conversation(store, BIG_ID)
        rows.append(
            (
                f"replay {BIG_ID} ({len(big.scrollback):,} items)",
                median_ms(lambda: replay_conversation(store, BIG_ID), args.runs),
                100.0,
            )
        )
        leaf = CHAIN_IDS[-1]
        chain = replay_conversation(store, leaf)
        rows.append(
            (
                f"replay 50-deep fork chain {leaf} ({len(chain.scrollback):,} items)",
                median_ms(lambda: replay_conversation(store, leaf), args.runs),
                50.0,
            )
        )
        session = Session(store)
        rows.append(
            (
                "switch to the 10,000-event conversation + build context",
                median_ms(lambda: (session.open(BIG_ID), session.context()), args.runs),
                None,
            )
        )
        for words in ("database migration", "function return"):
            rows.append(
                (f"search '{words}'", median_ms(lambda w=words: store.search(w), args.runs), 50.0)
            )
    finally:
        store.close()
    size = sum(p.stat().st_size for p in home.glob(args.path.name + "*"))
    print(f"{'measure':58} {'ms':>9} {'target':>8}")
    for name, value, target in rows:
        mark = "" if target is None else ("ok" if value <= target else "SLOW")
        goal = f"{target:.0f}" if target else "-"
        print(f"{name:58} {value:9.1f} {goal:>8} {mark}")
    print(f"{'database size (with WAL)':58} {size / 1e6:8.1f} MB")


if __name__ == "__main__":
    main()

"""Time the storage layer's hot paths on a database made by ``make_db.py``.

Usage: ``python benchmarks/bench_storage.py PATH|URL [--runs 7]`` (a SQLite file, or a
``postgresql://`` URL of a database loaded with ``load_pg.py``). Each figure is the
median of several warm runs (the first, cold run is shown separately where it differs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_db import BIG_ID, CHAIN_IDS, SEARCH_QUERIES

from ikgui.storage import PeeweeStore, is_database_url, open_store


def measure(fn: Callable[[], object], runs: int) -> tuple[float, float, object]:
    """(cold ms, median warm ms, last result)."""
    start = time.perf_counter()
    result = fn()
    cold = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return cold, statistics.median(times), result


def searcher(store: PeeweeStore, words: str) -> Callable[[], object]:
    return lambda: store.search(words)


def replay_ranges(store: PeeweeStore, conv_id: str) -> int:
    """The storage half of a replay: walk the fork chain, collecting each range."""
    total = 0
    upto: int | None = None
    conv = store.get_conversation(conv_id)
    while conv is not None:
        clear = store.latest_clear(conv.id, upto)
        total += len(store.events(conv.id, after=clear, upto=upto))
        if clear is not None or conv.parent is None:
            break
        upto = conv.fork_event_id
        conv = store.get_conversation(conv.parent)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("location", help="a SQLite file or a postgresql:// URL")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    location: Path | str = args.location
    if not is_database_url(location):
        location = Path(location)
    runs: int = args.runs

    start = time.perf_counter()
    store = open_store(location)
    opened = (time.perf_counter() - start) * 1000
    rows: list[tuple[str, float, float, str]] = [("open_store", opened, opened, "")]

    def row(label: str, fn: Callable[[], object], note: Callable[[object], str]) -> None:
        cold, warm, result = measure(fn, runs)
        rows.append((label, cold, warm, note(result)))

    def count(r: object) -> str:
        return f"{len(r):,} rows" if isinstance(r, list) else str(r)

    row("list newest 50", lambda: store.list_conversations(50), count)
    newest = store.list_conversations(50)
    cursor = (newest[-1].updated_at, newest[-1].id)
    row("list next 50 (keyset)", lambda: store.list_conversations(50, before=cursor), count)
    row("list all (conv list)", lambda: store.list_conversations(), count)
    row("list all, tag filter", lambda: store.list_conversations(tag="work"), count)
    row(f"events of {BIG_ID}", lambda: store.events(BIG_ID), count)
    row(
        f"replay ranges, {len(CHAIN_IDS)}-deep fork chain",
        lambda: replay_ranges(store, CHAIN_IDS[-1]),
        lambda r: f"{r:,} events",
    )
    row(f"tail_events({BIG_ID}, 200)", lambda: store.tail_events(BIG_ID, 200), count)
    page = [c.id for c in newest]
    row("context_counts, 50 listed", lambda: store.context_counts(page), lambda r: "")
    row("inherited_counts, fork chain", lambda: store.inherited_counts(CHAIN_IDS), lambda r: "")
    row("get_conversation", lambda: store.get_conversation(BIG_ID), lambda r: "")
    row("find_by_suffix('bigg')", lambda: store.find_by_suffix("bigg"), count)
    row("unfinished_replies (start-up)", store.unfinished_replies, count)
    for words in SEARCH_QUERIES:
        row(f"search {words!r}", searcher(store, words), count)
    conv = newest[0].id
    row(
        "append_event (committed)",
        lambda: store.append_event(conv, "command", "bench", {"ok": True}),
        lambda r: "",
    )
    store.close()

    width = max(len(r[0]) for r in rows)
    if isinstance(location, Path):
        print(f"{location}  ({location.stat().st_size / 1e6:,.1f} MB)")
    else:
        print(store.describe())
    print(f"{'operation':<{width}}  {'cold ms':>9}  {'median ms':>9}")
    for label, cold, warm, note in rows:
        print(f"{label:<{width}}  {cold:9.2f}  {warm:9.2f}  {note}")


if __name__ == "__main__":
    main()

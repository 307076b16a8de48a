"""Folders (SPEC §15, issue 26) on 10,000 conversations with 1,000 tags in a three-level
tree, on SQLite and PostgreSQL: the folder tree's counts, choosing a folder (its first
page of the listing) within 50 ms, renaming a folder over 2,000 conversations within
200 ms.

    .venv/bin/python benchmarks/bench_folders.py [--pg URL | --pg-server] [--runs 11]

The history is made here (untimed): 10 top folders × 10 × 10 leaf tags (``t3/m4/l5``:
1,000 tags, 1,110 folders with their parents); conversations 0–1,999 carry a tag under
``t0`` (the folder renamed), every conversation one to three leaf tags in all. Then,
each a median of ``--runs`` warm runs:

1. The folder tree with every folder's count (``library.folders.tree``: one read of the
   tag rows) and the smart folders' live counts.
2. Choosing a folder: the first page (100) of a top folder's subtree, of a middle one's,
   and of a top folder within a second tag (the AND-filter); and that filter's count
   (a folder's own count is the tree's).
3. Renaming ``t0`` (2,000 conversations, its 100 tags) to ``r0`` and back, each one
   transaction (``library.folders.rename_folder``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ikgui.domain.events import Conversation  # noqa: E402
from ikgui.domain.library import folders  # noqa: E402
from ikgui.storage import PeeweeStore, open_store  # noqa: E402

CONVERSATIONS = 10_000
IN_T0 = 2_000
CHOOSE_TARGET_MS = 50.0
RENAME_TARGET_MS = 200.0


def leaf(rng: random.Random, top: int | None = None) -> str:
    t = rng.randrange(1, 10) if top is None else top
    return f"t{t}/m{rng.randrange(10)}/l{rng.randrange(10)}"


def make_history(store: PeeweeStore, seed: int = 26) -> None:
    rng = random.Random(seed)
    start = time.perf_counter()
    with store.transaction():
        for i in range(CONVERSATIONS):
            tags = {leaf(rng, 0 if i < IN_T0 else None)}
            tags.update(leaf(rng) for _ in range(rng.randrange(3)))
            when = 1_700_000_000.0 + i * 60
            store.insert_conversation(
                Conversation(
                    id=f"chat-{i:05d}",
                    title=f"conversation {i}",
                    created_at=when,
                    updated_at=when,
                    tags=tuple(sorted(tags)),
                )
            )
    folders.save_smart_folder(store, "t1 and t2", "", ["t1", "t2"])
    folders.save_smart_folder(store, "middle", "", ["t3/m3"])
    folders.set_project(store, folders.Project("t4/m4", model="bench-model"))
    took = time.perf_counter() - start
    print(f"made {CONVERSATIONS:,} conversations and their tags in {took:.1f} s")


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def row(label: str, ms: float, target: float | None = None) -> None:
    verdict = "" if target is None else ("  ok" if ms <= target else "  OVER")
    limit = "" if target is None else f"  (target <= {target:g} ms)"
    print(f"  {label:<58} {ms:8.2f} ms{limit}{verdict}")


def measure(store: PeeweeStore, runs: int, kind: str) -> None:
    print(f"{kind}:")
    make_history(store)
    tree = folders.tree(store)
    nodes = sum(1 for root in tree for _ in root.walk())
    assert nodes == 1110 and tree[0].path == "t0" and tree[0].count == IN_T0
    row(
        f"1. the folder tree with counts ({nodes:,} folders)",
        median_ms(lambda: folders.tree(store), runs),
    )
    row(
        "   the smart folders' live counts (2)",
        median_ms(lambda: folders.smart_counts(store), runs),
    )

    def choose(tags: list[str]) -> Callable[[], object]:
        return lambda: store.list_conversations(100, tags=tags)

    for label, tags in (
        ("2. choose a top folder (t1): its first page (100)", ["t1"]),
        ("   choose a middle folder (t2/m5): its first page", ["t2/m5"]),
        ("   choose t1 within the tag filter t2: its first page", ["t1", "t2"]),
    ):
        row(label, median_ms(choose(tags), runs), CHOOSE_TARGET_MS)
    row(
        "   count t1 within t2 (the tree counts folders alone)",
        median_ms(lambda: store.count_conversations(["t1", "t2"]), runs),
    )

    names = ["t0", "r0"]
    times = []
    for i in range(runs):
        old, new = names[i % 2], names[(i + 1) % 2]
        start = time.perf_counter()
        edit = folders.rename_folder(store, old, new)
        times.append(time.perf_counter() - start)
        assert edit.count == IN_T0, edit.count
    row(
        f"3. rename a folder over {IN_T0:,} conversations ({len(edit.edits)} tags)",
        statistics.median(times) * 1000,
        RENAME_TARGET_MS,
    )
    start = time.perf_counter()
    folders.undo_folder_edit(store, edit)
    row("   its undo (one transaction)", (time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    gone = folders.delete_folder(store, edit.old)
    row(
        f"   delete that folder ({gone.count:,} conversations keep)",
        (time.perf_counter() - start) * 1000,
    )
    start = time.perf_counter()
    folders.undo_folder_edit(store, gone)
    row("   and its undo", (time.perf_counter() - start) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pg", help="an empty PostgreSQL database's URL")
    parser.add_argument("--pg-server", action="store_true", help="start a server of our own")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, open_store(Path(folder) / "ikgui.db") as store:
        measure(store, args.runs, "SQLite")
    if args.pg_server:
        from tests.support.pg_server import PgServer

        with PgServer() as server, open_store(server.create_database("ikgui_folders")) as store:
            measure(store, args.runs, "PostgreSQL")
    elif args.pg:
        with open_store(args.pg) as store:
            measure(store, args.runs, "PostgreSQL")


if __name__ == "__main__":
    main()

"""How soon a PostgreSQL store hears another machine's change, and what the test
server's databases cost: the speeds the tests no longer time.

    .venv/bin/python benchmarks/bench_notify.py [--runs 20]

On a PostgreSQL server of its own (``tests/support/pg_server.py``):

- *notify latency*: a second connection sends ``NOTIFY`` (as another machine's store's
  triggers do) until the listener's version moves: issue 14's bound is one second;
- *write to heard*: a second store renames a conversation until the first one's data
  version moves (the triggers, the listener and the store together);
- *listener close*: ``ChangeListener.close()`` until its thread is gone;
- *create database*: ``PgServer.create_database()`` (what every ``pg_url`` test costs).

Prints the median and range of ``--runs`` runs, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402  (after the path set-up)

from ikgui.storage import open_store  # noqa: E402
from ikgui.storage.pg_listen import CHANNEL, ChangeListener  # noqa: E402
from tests.storage.helpers import add_conversation  # noqa: E402
from tests.support.pg_server import PgServer  # noqa: E402

BOUND_MS = 1000.0


def until(condition: Callable[[], object], timeout: float = 20.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise SystemExit(f"timed out waiting for {condition}")
        time.sleep(0.0005)


def timed(action: Callable[[], object], done: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    until(done)
    return 1000 * (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {}
    with PgServer() as server:
        url = server.create_database()
        with psycopg.connect(url, autocommit=True) as other:  # opened once: not timed
            listener = ChangeListener(url)
            listener.start()
            until(lambda: listener.connected)
            for _ in range(args.runs):
                before = listener.version
                figures.setdefault("notify latency", []).append(
                    timed(
                        lambda: other.execute("SELECT pg_notify(%s, 'event')", (CHANNEL,)),
                        lambda before=before: listener.version > before,  # type: ignore[misc]
                    )
                )
            listener.close()
        with open_store(url) as mine, open_store(url) as laptop:
            add_conversation(laptop, "c-1", title="First")
            first = mine.data_version()
            until(lambda: mine.listener.connected and mine.data_version() != first)
            for n in range(args.runs):
                before = mine.data_version()
                figures.setdefault("write to heard", []).append(
                    timed(
                        lambda n=n: laptop.update_conversation("c-1", title=f"Title {n}"),  # type: ignore[misc]
                        lambda before=before: mine.data_version() != before,  # type: ignore[misc]
                    )
                )
        for _ in range(args.runs):
            closing = ChangeListener(url)
            closing.start()
            until(lambda closing=closing: closing.connected)  # type: ignore[misc]
            thread = closing._thread
            assert thread is not None
            figures.setdefault("listener close", []).append(
                timed(closing.close, lambda thread=thread: not thread.is_alive())  # type: ignore[misc]
            )
        names: list[str] = []
        figures["create database"] = [
            timed(lambda: names.append(server.create_database()), lambda: True)
            for _ in range(args.runs)
        ]
    print(f"PostgreSQL change notification, ms (median, min-max of {args.runs})")
    for name, values in figures.items():
        print(
            f"  {name:<16} {statistics.median(values):8.1f}  ({min(values):.1f}-{max(values):.1f})"
        )
    slow = statistics.median(figures["write to heard"]) > BOUND_MS
    if slow:
        print(f"  a change took longer than {BOUND_MS:.0f} ms to be heard (issue 14's bound)")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())

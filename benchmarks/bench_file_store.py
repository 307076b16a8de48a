"""What attached files cost the store (SPEC §13, issue 24): one 2 MB image attached in 10
conversations is stored once; opening a conversation with 100 images reads none of
their bytes, so it is as fast as one without.

    .venv/bin/python benchmarks/bench_file_store.py [--pg URL | --pg-server] [--runs 11]

On a fresh SQLite file in a temporary folder (and, with ``--pg``, an empty PostgreSQL
database; ``--pg-server`` starts a server of its own, ``tests/support/pg_server.py``),
untimed set-up then:

1. Size: the database before and after a 2 MB image (random bytes: incompressible, as a
   photo is) is sent in 10 conversations, against the 20 MB that ten copies would take
   (and the 26.7 MB of ten base64 copies inside the chat, as other clients keep them).
2. Opening: the median replay of a conversation of 200 messages, 100 of them with a
   2 MB image each (200 MB of files), against the same conversation without files.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ikgui.domain.attachments import Attachment, StoredFile  # noqa: E402
from ikgui.domain.events import Conversation  # noqa: E402
from ikgui.domain.state.replay import replay_conversation  # noqa: E402
from ikgui.storage import PeeweeStore, open_store  # noqa: E402
from ikgui.storage.queries import execute_sql  # noqa: E402

MB = 1024 * 1024


def image(seed: int, size: int = 2 * MB) -> StoredFile:
    content = b"\x89PNG\r\n\x1a\n" + os.urandom(size - 8) if seed else b""
    sha = hashlib.sha256(content).hexdigest()
    return StoredFile(Attachment(sha, f"photo-{seed}.png", "image/png", len(content)), content)


def conversation(store: PeeweeStore, conv_id: str) -> str:
    now = time.time()
    store.insert_conversation(Conversation(conv_id, created_at=now, updated_at=now))
    return conv_id


def send(store: PeeweeStore, conv_id: str, text: str, file: StoredFile | None) -> None:
    data = {"attachments": [file.attachment.data()]} if file else None
    store.append_event(conv_id, "user", text, data, files=(file,) if file else ())
    store.append_event(conv_id, "assistant", "It is a photo of a harbour at dusk. " * 5)


def size(store: PeeweeStore) -> int:
    with store._reading() as db:
        if store.kind == "sqlite":
            execute_sql(db, "PRAGMA wal_checkpoint(TRUNCATE)")
            assert store.path is not None
            return store.path.stat().st_size
        row = execute_sql(db, "SELECT pg_database_size(current_database())").fetchone()
        return int(row[0])


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(store: PeeweeStore, runs: int) -> None:
    print(f"== {store.describe()}")
    before = size(store)
    shared = image(1)
    for i in range(10):
        send(store, conversation(store, f"shared-{i}"), "What is in this picture?", shared)
    after = size(store)
    print(
        f"one 2 MB image in 10 conversations: the store grew {(after - before) / MB:.2f} MB "
        f"(ten copies: 20.00 MB; ten base64 copies: {10 * 4 / 3 * 2:.2f} MB); "
        f"files stored: {store.stored_file_bytes() / MB:.2f} MB"
    )
    plain, pictures = conversation(store, "plain"), conversation(store, "pictures")
    for i in range(100):
        send(store, plain, f"message {i}", None)
        send(store, pictures, f"message {i}", image(100 + i))
    without = median_ms(lambda: replay_conversation(store, plain), runs)
    with_files = median_ms(lambda: replay_conversation(store, pictures), runs)
    print(
        f"opening 200 messages: {without:.1f} ms without files, {with_files:.1f} ms with "
        f"100 images of 2 MB (database {size(store) / MB:.0f} MB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", help="an empty PostgreSQL database's URL")
    parser.add_argument("--pg-server", action="store_true", help="start a server of our own")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, open_store(Path(folder) / "ikgui.db") as store:
        measure(store, args.runs)
    if args.pg_server:
        from tests.support.pg_server import PgServer

        with PgServer() as server, open_store(server.create_database("ikgui_files")) as store:
            measure(store, args.runs)
    elif args.pg:
        with open_store(args.pg) as store:
            measure(store, args.runs)


if __name__ == "__main__":
    main()

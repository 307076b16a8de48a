"""The per-conversation send lock: one holder at a time, across processes; a dead
holder's lock is free again; no lock files are left behind."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from ikgui.storage import SqliteStore
from ikgui.storage.locks import FileSendLock


def test_one_holder_at_a_time_and_nothing_left_behind(store: SqliteStore, db_path: Path) -> None:
    first, second = store.send_lock("chat-ab12"), store.send_lock("chat-ab12")
    other = store.send_lock("chat-cd34")
    assert first.acquire()
    assert not second.acquire()  # another open file: refused, also within one process
    assert other.acquire()  # other conversations are not affected
    first.release()
    assert second.acquire()
    second.release()
    other.release()
    assert list((db_path.parent / "locks").iterdir()) == []


def test_ids_that_are_not_file_names_are_hashed(tmp_path: Path) -> None:
    lock = FileSendLock(tmp_path, "../../etc/passwd")
    assert lock.path.parent == tmp_path and lock.path.name.endswith(".lock")
    assert lock.acquire()
    lock.release()


def test_a_lock_held_by_another_process_is_free_once_it_dies(
    store: SqliteStore, db_path: Path
) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                from pathlib import Path
                from ikgui.storage.locks import FileSendLock
                lock = FileSendLock(Path({str(db_path.parent / "locks")!r}), "chat-ab12")
                assert lock.acquire()
                print("held", flush=True)
                time.sleep(60)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        mine = store.send_lock("chat-ab12")
        assert not mine.acquire()
        holder.kill()  # a crash: nobody releases it
        holder.wait(10)
        assert mine.acquire()
        mine.release()
    finally:
        holder.kill()
        holder.wait(10)
        if holder.stdout is not None:
            holder.stdout.close()

"""Start-up's crash recovery leaves alone a reply another machine is still writing.

Its writer's process id means nothing on this machine (on a shared PostgreSQL database),
but the conversation's send lock is held while the reply streams, on any machine, and
goes when its holder dies: recovery marks the reply interrupted only once it is free.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ikgui.domain.session.crashed import recover_unfinished
from ikgui.storage import SqliteStore
from tests.storage.conftest import BOTH, open_kind

from .helpers import add_conversation

STORES = BOTH


def test_a_reply_whose_send_lock_is_held_elsewhere_is_not_marked_interrupted(
    store: SqliteStore, store_kind: str, db_path: Path, request: pytest.FixtureRequest
) -> None:
    add_conversation(store, "chat-aaaa")
    growing = {"model": "m", "streaming": True, "owner": 4_000_000}  # not a process here
    reply = store.append_event("chat-aaaa", "assistant", "half a rep", growing)
    other_machine = open_kind(store_kind, request, db_path)
    lock = other_machine.send_lock("chat-aaaa")
    try:
        assert lock.acquire()  # the other machine streams into chat-aaaa
        assert recover_unfinished(store, lambda pid: False) == 0
        assert store.get_event(reply.id).data == growing  # type: ignore[union-attr]
    finally:
        lock.release()  # its process ended (a crash drops the lock the same way)
        other_machine.close()
    assert recover_unfinished(store, lambda pid: False) == 1
    assert store.get_event(reply.id).data == {"model": "m", "interrupted": True}  # type: ignore[union-attr]

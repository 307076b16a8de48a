"""Closing and reopening a branch go through the session's one writer (issue 22, item 1):
on a full disk they wait in the write-behind queue like a message does (SPEC §11) and
are written, status and event in one transaction, when space returns. (They raised
``StorageError`` before: the store was written directly.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

from ikgui.domain.errors import StorageError
from ikgui.domain.events import STATUS_ACTIVE, STATUS_KILLED, Conversation, Kind
from ikgui.domain.session.session import Session
from ikgui.storage import open_store
from ikgui.storage.repository import SqliteStore
from tests.storage.test_pending_writes import db_path, fill, free, store, until_saved

__all__ = ["db_path", "store"]


def full(store: SqliteStore) -> None:
    """The disk is full, to the last byte: even a small change of status cannot go in."""
    fill(store)
    scratch = Conversation("chat-scratch")
    try:
        store.insert_conversation(scratch)
    except StorageError:
        return
    for size in (10_000, 1_000, 100, 10, 1):
        try:
            while True:
                store.append_event(scratch.id, Kind.USER, "x" * size)
        except StorageError:
            continue


def stored_status(db_path: Path, conv_id: str) -> str:
    with open_store(db_path) as fresh:
        conv = fresh.get_conversation(conv_id)
        assert conv is not None
        return conv.status


def kinds(db_path: Path, conv_id: str) -> list[str]:
    with open_store(db_path) as fresh:
        return [e.kind for e in fresh.events(conv_id)]


def test_a_branch_closed_and_reopened_on_a_full_disk_is_written_when_space_returns(
    store: SqliteStore, db_path: Path
) -> None:
    session = Session(store)
    session.append(Kind.USER, "the root")
    root = session.conversation.id
    child = session.fork().id
    session.open(root)
    full(store)

    async def scenario() -> None:
        _, closed = session.kill(child, cascade=False)  # no StorageError: it waits
        assert closed == 1 and session.writes
        assert session.state.scrollback[-1].kind == Kind.AGENT_KILLED  # shown already
        assert stored_status(db_path, child) == STATUS_ACTIVE
        session.reopen(child)  # waits behind the close
        assert len(session.writes) == 2
        free(store)
        session.writes.retry_now()
        await until_saved(session)

    asyncio.run(scenario())
    assert kinds(db_path, root)[-2:] == [Kind.AGENT_KILLED, Kind.AGENT_REOPENED]
    assert stored_status(db_path, child) == STATUS_ACTIVE


def test_a_close_written_late_closes_the_branch(store: SqliteStore, db_path: Path) -> None:
    session = Session(store)
    session.append(Kind.USER, "the root")
    root = session.conversation.id
    child = session.fork().id
    full(store)

    async def scenario() -> None:
        session.kill(None, cascade=False)  # the branch on screen: back to its parent
        assert session.conversation.id == root and session.writes
        free(store)
        session.writes.retry_now()
        await until_saved(session)

    asyncio.run(scenario())
    assert stored_status(db_path, child) == STATUS_KILLED
    assert kinds(db_path, root)[-1] == Kind.AGENT_KILLED


def test_a_fork_on_a_full_disk_is_opened_and_stored_when_space_returns(
    store: SqliteStore, db_path: Path
) -> None:
    session = Session(store)
    session.append(Kind.USER, "the root")
    root = session.conversation.id
    full(store)

    async def scenario() -> None:
        child = session.fork()  # no StorageError: it waits
        assert session.conversation.id == child.id and session.writes
        assert not store.conversation_exists(child.id)
        free(store)
        session.writes.retry_now()
        await until_saved(session)

    asyncio.run(scenario())
    child_id = session.conversation.id
    assert kinds(db_path, root)[-1] == Kind.FORK
    assert kinds(db_path, child_id) == [Kind.FORK]
    with open_store(db_path) as fresh:
        child = fresh.get_conversation(child_id)
        assert child is not None and child.parent == root
    assert [e.kind for e in session.state.scrollback] == [Kind.USER, Kind.FORK]

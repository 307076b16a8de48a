"""Writes the store refuses are kept in memory and written, in order, when it can
(SPEC §11): the session against a real SQLite store.

The store is a real SQLite file made "full" with ``PRAGMA max_page_count`` on its own
connection (SQLite's real SQLITE_FULL path), and "freed" again by raising the limit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ikgui.app.wiring import Providers
from ikgui.domain.errors import StorageError, UserError
from ikgui.domain.events import Kind
from ikgui.domain.session.pending import is_provisional
from ikgui.domain.session.session import Session, SessionEvent
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.facts import Changed
from ikgui.domain.state.replay import replay_conversation
from ikgui.storage import open_store
from ikgui.storage.repository import SqliteStore
from tests.cli.test_run import sse
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer

__all__ = ["wire_server", "wire_server_session"]


def make_session(store: SqliteStore, server: WireServer) -> Session:
    settings = Settings(default_provider="local", default_model="mock-gpt")
    settings.providers["local"] = ProviderSettings("local", "openai", f"{server.url}/v1")
    return Session(store, settings, provider_factory=Providers(settings))


def slow_reply(n: int = 100, pause: float = 0.02) -> Reply:
    parts = sse(*[f"w{i} " for i in range(n)]).split(b"\n\n")
    return Reply(
        chunks=tuple(p + b"\n\n" for p in parts if p),
        headers=(("content-type", "text/event-stream"),),
        pause=pause,
    )


BIG = [f"{i:06d} " + "lorem ipsum dolor sit amet " * 40 for i in range(300)]  # ~330 kB


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "ikgui.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[SqliteStore]:
    s = open_store(db_path)
    yield s
    s.close()


def fill(store: SqliteStore, extra: int = 0) -> None:
    """The disk is full: the file may not grow beyond ``extra`` more pages."""
    conn = store._connection()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + extra}")


def free(store: SqliteStore) -> None:
    store._connection().execute("PRAGMA max_page_count = 1073741823")


def stored(db_path: Path, conv_id: str) -> list[tuple[str, str]]:
    with open_store(db_path) as fresh:
        return [(e.kind, e.content) for e in fresh.events(conv_id)]


def shown(session: Session) -> list[tuple[str, str]]:
    return [(e.kind, e.content) for e in session.state.scrollback]


async def until_saved(session: Session, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while session.writes:
        assert time.monotonic() < deadline, f"still pending: {session.writes.error}"
        await asyncio.sleep(0.02)


def test_a_reply_whose_saves_fail_is_kept_and_written_when_space_returns(
    store: SqliteStore, db_path: Path, wire_server: WireServer
) -> None:
    wire_server.route("/v1/chat/completions", slow_reply(300, 0.0))
    session = make_session(store, wire_server)
    heard: list[SessionEvent] = []
    session.subscribe(heard.append)
    session.new_conversation()
    session.mark("before")
    conv_id = session.conversation.id
    fill(store)
    text = "".join(f"w{i} " for i in range(300))

    async def scenario() -> None:
        reply = await session.send("x " * 3000)  # even the user message cannot be written
        assert reply is not None and reply.content == text
        assert is_provisional(reply.id)
        assert session.writes and "the disk is full" in session.writes.error
        # The window keeps working in memory: everything is shown, nothing is lost...
        assert shown(session)[-2:] == [("user", "x " * 3000), ("assistant", text)]
        # ...and later events wait behind the earlier ones, even once there is room.
        free(store)
        session.mark("after")
        session.rewind("after")  # names the waiting mark by its provisional id
        assert stored(db_path, conv_id) == [("mark", "")]
        session.writes.retry_now()
        await until_saved(session)

    asyncio.run(scenario())
    kinds = [k for k, _ in stored(db_path, conv_id)]
    assert kinds == ["mark", "user", "assistant", "mark", "rewind"]
    assert stored(db_path, conv_id)[2] == ("assistant", text)
    with open_store(db_path) as fresh:
        conv = fresh.get_conversation(conv_id)
        assert conv is not None and conv.message_count == 2 and conv.tokens_output == 7
        reply_event = fresh.events(conv_id)[2]
        assert reply_event.data["interrupted"] is False and "streaming" not in reply_event.data
        assert [m.label for m in replay_conversation(fresh, conv_id).marks] == ["before", "after"]
        mark, rewind = fresh.events(conv_id)[3:]
        assert rewind.data["target_event_id"] == mark.id  # the real id, remapped
    # The live state equals a fresh replay again: real ids, same marks.
    again = replay_conversation(store, conv_id)
    assert session.state.scrollback == again.scrollback
    assert session.state.context == again.context
    assert [(m.event_id, m.label) for m in session.state.marks] == [
        (m.event_id, m.label) for m in again.marks
    ]
    names = [h.name for h in heard]
    assert "writes_pending" in names
    assert any(isinstance(h, Changed) and "replayed" in h.aspects for h in heard)


def test_a_new_conversation_on_a_full_disk_is_created_when_space_returns(
    store: SqliteStore, db_path: Path, wire_server: WireServer
) -> None:
    wire_server.route("/v1/chat/completions", slow_reply(5, 0.0))
    session = make_session(store, wire_server)
    session.new_conversation()
    conv_id = session.conversation.id
    fill(store)

    async def scenario() -> None:
        await session.send("a first message on a full disk " * 400)
        assert not store.conversation_exists(conv_id)
        with pytest.raises(UserError, match="until the changes not saved yet"):
            session.fork()
        session.reload()  # another process's poll must not wipe what waits
        session.update_fields(draft="typing on")  # a draft stays in memory meanwhile
        with pytest.raises(UserError, match="not saved yet"):
            session.update_fields(title="renamed")
        assert [k for k, _ in shown(session)] == ["user", "assistant"]
        free(store)
        await until_saved(session)  # the retry loop, with its back-off

    asyncio.run(scenario())
    with open_store(db_path) as fresh:
        conv = fresh.get_conversation(conv_id)
        assert conv is not None and conv.title.startswith("a first message on a full")
        assert (conv.message_count, conv.tokens_input, conv.tokens_output) == (2, 5, 7)
        assert [e.kind for e in fresh.events(conv_id)] == ["user", "assistant"]
        assert fresh.events(conv_id)[1].content == "".join(f"w{i} " for i in range(5))


def test_a_reply_growing_past_the_free_space_keeps_streaming(
    store: SqliteStore, db_path: Path, wire_server: WireServer
) -> None:
    from tests.cli.test_run import sse_reply

    wire_server.route("/v1/chat/completions", sse_reply(*BIG, pause=0.0))
    session = make_session(store, wire_server)
    session.new_conversation()
    session.mark("m")
    conv_id = session.conversation.id
    fill(store, extra=8)  # room for the user message, not for the whole reply

    async def scenario() -> None:
        reply = await session.send("tell me a long story")
        assert reply is not None and reply.content == "".join(BIG)
        assert session.writes
        assert [k for k, _ in stored(db_path, conv_id)] == ["mark", "user", "assistant"]
        free(store)
        session.writes.retry_now()
        await until_saved(session)

    asyncio.run(scenario())
    assert stored(db_path, conv_id)[-1] == ("assistant", "".join(BIG))


def test_without_keep_pending_a_failed_write_still_raises(
    store: SqliteStore, wire_server: WireServer
) -> None:
    session = make_session(store, wire_server)
    session.keep_pending = False
    session.new_conversation()
    session.mark("m")
    fill(store)
    with pytest.raises(StorageError, match="the disk is full"):
        session.append(Kind.USER, "y " * 5000)
    assert not session.writes

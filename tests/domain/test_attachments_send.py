"""Sending files with a message (SPEC §13, issue 24 item 4) on the in-memory store with
a scripted provider: the ``user`` event lists them and its files are stored with it;
the context carries their bytes, read from the store in a worker thread at send time,
for every message that lists files; retry, fork and "edit and resend" keep them. (The
wire forms over real HTTP: tests/providers/test_attachment_wire.py; SQLite and
PostgreSQL: tests/storage/test_attachment_send.py.)"""

from __future__ import annotations

import asyncio
import hashlib
import threading

import pytest

from ikgui.domain.attachments import Attachment, AttachmentError, StoredFile, listed
from ikgui.domain.errors import ProviderError
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.streaming import ChatRequest
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def stored(
    name: str, content: bytes, mime: str = "image/png", text: str | None = None
) -> StoredFile:
    sha = hashlib.sha256(content).hexdigest()
    return StoredFile(Attachment(sha, name, mime, len(content)), content, text)


SHOT = stored("shot.png", b"\x89PNG fake pixels")
NOTES = stored("notes.md", b"# notes\n", "text/markdown", "# notes\n")


class ThreadedStore(MemoryStore):
    """Records the thread each ``read_files`` ran on."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[tuple[list[str], bool]] = []

    def read_files(self, shas):  # type: ignore[no-untyped-def]
        on_main = threading.current_thread() is threading.main_thread()
        self.reads.append((list(shas), on_main))
        return super().read_files(shas)


def make(store: MemoryStore, *scripts: list) -> tuple[Session, ScriptedProvider]:  # type: ignore[type-arg]
    provider = ScriptedProvider(*(scripts or (text_reply("seen"),)))
    settings = Settings(default_provider="local", default_model="vision")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    return Session(store, settings, provider_factory=provider), provider


def sent_files(request: ChatRequest) -> list[list[object]]:
    return [m.get("files", []) for m in request.messages if m["role"] == "user"]


def test_a_message_is_stored_with_its_files_and_sent_with_their_bytes() -> None:
    store = ThreadedStore()
    session, provider = make(store)
    asyncio.run(session.send("what is in these?", [SHOT, NOTES]))
    user = next(e for e in session.state.context if e.kind == Kind.USER)
    assert listed(user.data) == [SHOT.attachment, NOTES.attachment]
    assert store.read_files([SHOT.sha256, NOTES.sha256]) == {
        SHOT.sha256: SHOT,
        NOTES.sha256: NOTES,
    }
    [request] = provider.requests
    [message] = request.messages
    assert message["content"] == "what is in these?" and message["files"] == [SHOT, NOTES]
    # The bytes were read in a worker thread, once, for the whole context.
    assert store.reads[0] == ([SHOT.sha256, NOTES.sha256], False)
    # What the model would receive next names the files, without their bytes.
    [context] = session.context()[:1]
    assert context["attachments"] == [SHOT.attachment.data(), NOTES.attachment.data()]


def test_every_message_of_the_context_carries_its_files_at_each_send() -> None:
    store = MemoryStore()
    session, provider = make(store)
    asyncio.run(session.send("first", [SHOT]))
    asyncio.run(session.send("and this?", [NOTES]))
    asyncio.run(session.send("no file"))
    assert sent_files(provider.requests[-1]) == [[SHOT], [NOTES], []]


def test_a_file_given_by_reference_must_be_stored_already() -> None:
    store = MemoryStore()
    session, provider = make(store)
    with pytest.raises(AttachmentError, match=r"^shot\.png is no longer stored"):
        asyncio.run(session.send("look", [SHOT.attachment]))
    assert not session.saved and provider.requests == []  # nothing written, nothing sent
    store.put_files([SHOT])  # a pasted image: stored with the draft
    asyncio.run(session.send("look", [SHOT.attachment]))
    assert sent_files(provider.requests[0]) == [[SHOT]]


def test_a_file_over_the_limit_refuses_the_whole_message() -> None:
    store = MemoryStore()
    session, provider = make(store)
    session.settings.attachment_mb = 1
    big = stored("big.png", b"x" * (1024 * 1024 + 1))
    with pytest.raises(AttachmentError, match=r"^big\.png is 1\.0 MB: files may be at most 1 MB"):
        asyncio.run(session.send("look", [SHOT, big]))
    assert not session.saved and store.read_files([SHOT.sha256]) == {}
    assert provider.requests == []


def test_a_file_the_store_lost_is_sent_as_its_name() -> None:
    store = MemoryStore()
    session, provider = make(store)
    asyncio.run(session.send("look", [SHOT]))
    store._files.clear()  # (a hand-edited database)
    asyncio.run(session.send("again"))
    assert sent_files(provider.requests[-1])[0] == [SHOT.attachment]


def test_retry_fork_and_edit_keep_a_messages_files() -> None:
    store = MemoryStore()
    failure = ProviderError("The server had an internal error (500).", "server_error", 500)
    session, provider = make(store, [failure], text_reply("seen"))
    with pytest.raises(ProviderError):
        asyncio.run(session.send("look", [SHOT]))
    error = session.state.context[-1]
    asyncio.run(session.retry(error.id))
    assert sent_files(provider.requests[-1]) == [[SHOT]]
    user = next(e for e in session.state.context if e.kind == Kind.USER)
    reply = session.state.context[-1]
    parent = session.conversation.id
    session.fork(reply.id)
    asyncio.run(session.send("more"))
    assert sent_files(provider.requests[-1]) == [[SHOT], []]
    session.open(parent)
    asyncio.run(session.edit_and_resend(user.id, "look closer"))
    assert session.conversation.id != parent
    [message] = provider.requests[-1].messages
    assert (message["content"], message["files"]) == ("look closer", [SHOT])
    edited = [e for e in session.state.context if e.kind == Kind.USER][-1]
    assert listed(edited.data) == [SHOT.attachment]


def test_on_a_full_disk_the_message_waits_with_its_files_and_they_are_sent() -> None:
    store = MemoryStore()
    session, provider = make(store)
    asyncio.run(session.send("hello"))
    store.read_only = "the disk is full"
    asyncio.run(session.send("look", [SHOT]))
    assert session.writes  # the message and the reply wait...
    assert sent_files(provider.requests[-1]) == [[], [SHOT]]  # ...the file went all the same
    assert store.read_files([SHOT.sha256]) == {}
    store.read_only = None
    session.writes.flush()
    assert store.read_files([SHOT.sha256]) == {SHOT.sha256: SHOT}


def test_a_store_that_cannot_be_read_sends_the_files_by_name() -> None:
    from ikgui.domain.errors import StorageError

    class Away(MemoryStore):
        away = False

        def read_files(self, shas):  # type: ignore[no-untyped-def]
            if self.away:
                raise StorageError("Could not read the database: the server went away.")
            return super().read_files(shas)

    store = Away()
    session, provider = make(store)
    asyncio.run(session.send("look", [SHOT]))
    store.away = True
    asyncio.run(session.send("again"))
    assert sent_files(provider.requests[-1]) == [[SHOT.attachment], []]


def test_a_message_of_files_alone_is_titled_by_their_names() -> None:
    store = MemoryStore()
    session, provider = make(store)
    asyncio.run(session.send("", [SHOT, NOTES]))
    assert session.conversation.title == "shot.png, notes.md"
    [message] = provider.requests[0].messages
    assert (message["content"], message["files"]) == ("", [SHOT, NOTES])

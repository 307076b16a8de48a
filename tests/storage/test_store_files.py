"""Attached files in the store (SPEC §13), on a real SQLite file and a real PostgreSQL
server: each file once by its SHA-256, written in the same transaction as the event
that lists it, shared by conversations, removed with the last event or draft that
refers to it, found by search, and never read when a conversation is opened."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import psycopg
import pytest

from ikgui.domain.attachments import (
    Attachment,
    AttachmentError,
    DraftFile,
    StoredFile,
    draft_files,
    draft_files_text,
)
from ikgui.domain.errors import NotFoundError, StorageError
from ikgui.domain.events import Conversation
from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings
from ikgui.domain.state.replay import replay_conversation
from ikgui.storage import PeeweeStore, open_store
from ikgui.storage.migrations import MIGRATIONS
from ikgui.storage.pg_migrations import PG_MIGRATIONS
from ikgui.storage.queries import Query, execute_sql

STORES = ("sqlite", "postgresql")


def a_file(
    name: str, content: bytes, mime: str = "image/png", text: str | None = None
) -> StoredFile:
    sha = hashlib.sha256(content).hexdigest()
    return StoredFile(Attachment(sha, name, mime, len(content)), content, text)


PNG = a_file("screenshot.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
NOTES = a_file(
    "quarterly-notes.md", b"# Notes\n", "text/markdown", "The zeppelin budget grew by a third."
)


def new_conversation(store: PeeweeStore, conv_id: str = "c1", title: str | None = None) -> str:
    now = time.time()
    store.insert_conversation(Conversation(conv_id, title=title, created_at=now, updated_at=now))
    return conv_id


def send(store: PeeweeStore, conv_id: str, text: str, *files: StoredFile, named: str = ""):
    listed = [
        (
            Attachment(f.sha256, named, f.attachment.mime, f.attachment.size)
            if named
            else f.attachment
        )
        for f in files
    ]
    data = {"attachments": [a.data() for a in listed]}
    return store.append_event(conv_id, "user", text, data, files=files)


def count(store: PeeweeStore, table: str) -> int:
    with store._reading() as db:
        return int(execute_sql(db, f"SELECT count(*) FROM {table}").fetchone()[0])


def age_files(store: PeeweeStore) -> None:
    """The files were put longer ago than a draft takes to name them."""
    with store._writing() as db:
        execute_sql(db, Query("UPDATE stored_file SET created_at = ?").text(db), [0.0])


def test_a_file_put_for_a_draft_is_left_a_while_by_a_sweep(store: PeeweeStore) -> None:
    store.put_files([PNG])  # pasted; the window names it in its draft a moment later
    assert store.remove_unreferenced_files() == 0
    age_files(store)
    store.put_files([PNG])  # pasted again: fresh again
    assert store.remove_unreferenced_files() == 0
    age_files(store)
    assert store.remove_unreferenced_files() == 1
    assert store.has_files([PNG.sha256]) == set()


def test_a_file_is_stored_once_with_the_event_that_lists_it(store: PeeweeStore) -> None:
    conv_id = new_conversation(store)
    event = send(store, conv_id, "what is this?", PNG, NOTES)
    assert store.has_files([PNG.sha256, NOTES.sha256, "0" * 64]) == {PNG.sha256, NOTES.sha256}
    again = send(store, conv_id, "and again", PNG)
    assert count(store, "stored_file") == 2 and count(store, "event_file") == 3
    read = store.read_files([PNG.sha256, NOTES.sha256])
    assert read[PNG.sha256] == PNG and read[NOTES.sha256] == NOTES
    # The log carries the references only; replaying shows them as sent.
    events = store.events(conv_id)
    assert [e.id for e in events] == [event.id, again.id]
    assert events[0].data["attachments"] == [PNG.attachment.data(), NOTES.attachment.data()]


def test_a_failed_append_stores_no_file(store: PeeweeStore) -> None:
    with pytest.raises(NotFoundError):
        send(store, "nowhere", "hello", PNG)
    assert store.has_files([PNG.sha256]) == set()
    conv_id = new_conversation(store)
    # An event listing a file that is neither given nor stored is refused whole.
    missing = {"attachments": [NOTES.attachment.data()]}
    with pytest.raises(AttachmentError, match=r"quarterly-notes\.md is not stored"):
        store.append_event(conv_id, "user", "see the notes", missing, files=[PNG])
    assert store.events(conv_id) == [] and store.has_files([PNG.sha256]) == set()


def test_files_put_for_a_draft_are_listed_later_without_their_bytes(store: PeeweeStore) -> None:
    conv_id = new_conversation(store)
    store.put_files([PNG])
    store.put_files([PNG])  # stored already: left as it is
    store.append_event(conv_id, "user", "pasted", {"attachments": [PNG.attachment.data()]})
    assert count(store, "event_file") == 1
    assert store.read_files([PNG.sha256])[PNG.sha256].content == PNG.content


def test_the_draft_keeps_its_files(store: PeeweeStore) -> None:
    conv_id = new_conversation(store)
    kept = draft_files_text([DraftFile(PNG.attachment), DraftFile(NOTES.attachment, "/tmp/n.md")])
    store.update_conversation(conv_id, draft="look at these", draft_files=kept)
    conv = store.get_conversation(conv_id)
    assert conv is not None and conv.draft_files == kept
    assert [f.path for f in draft_files(conv.draft_files)] == [None, "/tmp/n.md"]
    assert store.list_conversations()[0].draft_files == kept


def test_a_shared_file_goes_with_the_last_reference(store: PeeweeStore) -> None:
    one, two, three = (new_conversation(store, c) for c in ("c1", "c2", "c3"))
    send(store, one, "first", PNG)
    send(store, two, "second", PNG, named="same-picture.png")
    store.put_files([NOTES])
    store.update_conversation(three, draft_files=draft_files_text([DraftFile(NOTES.attachment)]))
    assert count(store, "stored_file") == 2
    store.delete_conversations([one])
    assert store.has_files([PNG.sha256]) == {PNG.sha256}  # the second still lists it
    store.delete_conversations([two])
    assert store.has_files([PNG.sha256]) == set()
    # A draft's file stays while the draft refers to it; a sweep takes it after.
    age_files(store)
    assert store.remove_unreferenced_files() == 0
    store.update_conversation(three, draft_files="")
    assert store.remove_unreferenced_files() == 1
    assert count(store, "stored_file") == 0 and count(store, "event_file") == 0


def test_search_finds_attachment_names_and_text(store: PeeweeStore) -> None:
    conv_id = new_conversation(store, "c1", "Planning")
    send(store, conv_id, "have a look", NOTES)
    other = new_conversation(store, "c2", "Pictures")
    send(store, other, "and this one", PNG)
    hits = store.search("zeppelin budget")
    assert [h.conversation.id for h in hits] == [conv_id]
    assert "zeppelin budget" in hits[0].snippet
    assert [h.conversation.id for h in store.search("quarterly")] == [conv_id]
    assert [h.conversation.id for h in store.search("screenshot")] == [other]
    store.update_conversation(conv_id, trashed_at=time.time())
    assert store.search("zeppelin") == []
    store.delete_conversations([conv_id])
    assert store.search("zeppelin") == [] and store.has_files([NOTES.sha256]) == set()


@pytest.mark.parametrize("window", [False, True], ids=["command-line", "window"])
def test_files_are_read_from_a_worker_thread(store: PeeweeStore, window: bool) -> None:
    if window:  # a window's store: its calls wait a bounded time for the server
        store.answer_within(5.0)
    conv_id = new_conversation(store)
    send(store, conv_id, "what is this?", PNG)
    got: dict[str, StoredFile] = {}
    for _ in range(2):  # each read has a connection of its own, closed after
        worker = threading.Thread(target=lambda: got.update(store.read_files([PNG.sha256])))
        worker.start()
        worker.join()
    assert got == {PNG.sha256: PNG}
    assert store.events(conv_id)[0].content == "what is this?"  # this thread's still works


def test_opening_a_conversation_never_reads_the_files(
    store: PeeweeStore, caplog: pytest.LogCaptureFixture
) -> None:
    conv_id = new_conversation(store)
    for i in range(5):
        send(store, conv_id, f"picture {i}", PNG)
    reply = store.append_event(conv_id, "assistant", "", {"streaming": True})
    with caplog.at_level(logging.DEBUG, logger="peewee"):
        # What opening a conversation reads, and a reply's streaming saves.
        replay_conversation(store, conv_id)
        store.tail_events(conv_id, 50)
        store.get_conversation(conv_id)
        store.list_conversations()
        store.listing_rows()
        store.unfinished_replies()  # (start-up: a reply a crash left streaming)
        store.update_event(reply.id, "growing", {"streaming": True})
        store.update_event(reply.id, "grown", {})
    statements = [str(r.msg) for r in caplog.records if r.name == "peewee"]
    assert statements, "the SQL trace saw nothing"
    assert not [s for s in statements if "stored_file" in s]


def test_the_store_holds_a_file_attached_ten_times_once(store: PeeweeStore) -> None:
    big = a_file("photo.png", bytes(range(256)) * 8192)  # 2 MB
    for i in range(10):
        send(store, new_conversation(store, f"c{i}"), "look", big)
    assert count(store, "stored_file") == 1 and count(store, "event_file") == 10
    assert store.stored_file_bytes() == len(big.content)


@pytest.mark.parametrize("kind", STORES)
def test_an_old_database_gains_the_file_tables(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    path: Path | str = tmp_path / "old.db"
    before: Sequence[object] = MIGRATIONS[:6]
    if kind == "postgresql":
        path, before = request.getfixturevalue("pg_url"), PG_MIGRATIONS[:6]
    with open_store(path, migrations=before) as old:  # type: ignore[arg-type]
        assert old.schema_version() == 6
        new_conversation(old, "c1")
        old.append_event("c1", "user", "before attachments")
    with open_store(path) as store:
        assert store.get_conversation("c1").draft_files == ""  # type: ignore[union-attr]
        send(store, "c1", "now with a file", NOTES)
        assert [h.conversation.id for h in store.search("zeppelin")] == ["c1"]


def test_a_full_disk_refuses_the_event_and_its_file_together(tmp_path: Path) -> None:
    # A full disk, here SQLite's max_page_count (tests/cli/test_attach_full_disk.py fills
    # a real file system).
    with open_store(tmp_path / "full.db") as store:
        conv_id = new_conversation(store)
        conn = store._connection()
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 1}")
        with pytest.raises(StorageError, match="full"):
            send(store, conv_id, "too big for the disk", PNG)
        conn.execute("PRAGMA max_page_count = 1073741823")
        assert store.events(conv_id) == [] and store.has_files([PNG.sha256]) == set()


def test_a_draft_files_change_moves_no_listing(pg_url: str) -> None:
    """Session state as the draft is: another window hears it as unlisted."""
    with open_store(pg_url) as store, psycopg.connect(pg_url, autocommit=True) as listener:
        conv_id = new_conversation(store, "chat-aaaa")
        listener.execute("LISTEN ikgui_changes")
        store.update_conversation(
            conv_id, draft_files=draft_files_text([DraftFile(PNG.attachment)])
        )
        heard = [n.payload for n in listener.notifies(timeout=2, stop_after=1)]
    assert heard == ["conversation_unlisted"]


def test_the_session_keeps_a_drafts_files_with_it(tmp_path: Path) -> None:
    with open_store(tmp_path / "ikgui.db") as store:
        session = Session(store, Settings(default_provider="local", default_model="m"))
        session.new_conversation()
        session.current.append("user", "saved first")
        conv_id = session.conversation.id
        kept = draft_files_text([DraftFile(NOTES.attachment, "/home/me/notes.md")])
        session.keep_drafts(conv_id, draft="about these notes", draft_files=kept)
        assert session.conversation.draft_files == kept
    with open_store(tmp_path / "ikgui.db") as again:  # a restart
        conv = again.get_conversation(conv_id)
        assert conv is not None and conv.draft == "about these notes"
        assert [f.path for f in draft_files(conv.draft_files)] == ["/home/me/notes.md"]

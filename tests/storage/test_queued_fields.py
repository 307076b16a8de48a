"""Changes of fields on a full disk (issue 22, item 1): ``apply`` writes them through
the write-behind queue, so a rename, tags or the Trash the store refuses waits
in order with the rest and lands once the disk has room; nothing is lost, and the
queue says so (``WritesPending``, ``writes.error``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ikgui.domain.errors import StorageError, UserError
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.facts import Changed, Fact, WritesPending
from ikgui.local import recovery
from ikgui.storage import open_store
from ikgui.storage.repository import SqliteStore


def listen(session: Session) -> list[Fact]:
    heard: list[Fact] = []
    session.subscribe(heard.append)
    return heard


def changes_heard(heard: list[Fact]) -> list[Changed]:
    return [f for f in heard if isinstance(f, Changed)]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = open_store(tmp_path / "ikgui.db")
    yield s
    s.close()


def fill(store: SqliteStore) -> None:
    """The disk is full: the file may not grow by one page."""
    conn = store._connection()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def free(store: SqliteStore) -> None:
    store._connection().execute("PRAGMA max_page_count = 1073741823")


LONG = "a title long enough to need a page of its own " * 200


def test_a_rename_on_a_full_disk_waits_in_the_queue_and_lands(store: SqliteStore) -> None:
    session = Session(store)
    session.append(Kind.USER, "hello")
    conv_id = session.conversation.id
    heard = listen(session)
    fill(store)

    renamed = session.library.rename(conv_id, LONG)

    assert renamed.title == LONG.strip() and session.conversation.title == LONG.strip()
    assert len(session.writes) == 1 and session.writes.error  # said, not lost
    assert any(isinstance(f, WritesPending) for f in heard)
    (fact,) = changes_heard(heard)
    assert fact.aspects == {"title"} and fact.conversation is None  # not stored yet
    stored = store.get_conversation(conv_id)
    assert stored is not None and stored.title == "hello"
    free(store)
    heard.clear()
    assert session.writes.flush()
    stored = store.get_conversation(conv_id)
    assert stored is not None and stored.title == LONG.strip() and stored.title_by_user
    assert any(isinstance(f, Changed) and "title" in f.aspects for f in heard)


def test_tags_and_the_trash_on_a_full_disk_wait_in_order(store: SqliteStore) -> None:
    session = Session(store)
    session.append(Kind.USER, "hello")
    conv_id = session.conversation.id
    fill(store)
    tags = [f"+tag-{i:03d}" for i in range(300)]
    with pytest.raises(StorageError):  # (the store refuses it: it waits)
        store.change_tags(conv_id, [t[1:] for t in tags], [])
    assert session.retag(tags)[:2] == ("tag-000", "tag-001")
    session.library.trash(conv_id)
    assert len(session.writes) == 2
    free(store)
    assert session.writes.flush()
    stored = store.get_conversation(conv_id)
    assert stored is not None and len(stored.tags) == 300 and stored.trashed_at is not None


def test_a_tag_edit_everywhere_never_waits(store: SqliteStore) -> None:
    """Renaming a tag on every conversation is one store call whose answer (who had it)
    is what Undo gives back: while changes wait it is refused, not queued."""
    session = Session(store)
    session.append(Kind.USER, "hello")
    session.retag(["+old"])
    fill(store)
    session.library.rename(session.conversation.id, LONG)  # waits
    with pytest.raises(UserError):
        session.library.rename_tag("old", "new")
    free(store)
    assert session.writes.flush()
    edit = session.library.rename_tag("old", "new")
    assert edit.moved == (session.conversation.id,) and session.conversation.tags == ("new",)


def test_a_rename_still_waiting_at_the_end_is_kept_in_the_recovery_file(
    store: SqliteStore, tmp_path: Path
) -> None:
    """A change of fields that never found room is said in the recovery file, in words,
    as the events are (nothing the store refused is dropped silently)."""
    session = Session(store)
    session.append(Kind.USER, "hello")
    conv_id = session.conversation.id
    fill(store)
    session.library.rename(conv_id, LONG)
    session.library.trash(conv_id)

    line = recovery.rescue(session, tmp_path / "ikgui.db")

    assert line is not None and line.startswith("Error: could not save this change")
    path = Path(line.rsplit(" is in ", 1)[1])
    text = path.read_text(encoding="utf-8")
    assert f"--- {conv_id} change" in text
    assert f"title: {LONG.strip()}" in text and "moved to the Trash" in text


def test_empty_trash_goes_through_the_writer_and_waits_its_turn(store: SqliteStore) -> None:
    """Emptying the Trash is written by the one writer: while a change waits (a rename of
    a conversation in the Trash, on a full disk) it is refused in so many words instead
    of running ahead of it; once the queue is written it removes, and each conversation
    removed is told."""
    session = Session(store)
    session.append(Kind.USER, "an old one")
    old = session.conversation.id
    session.new_conversation()
    session.append(Kind.USER, "here")
    session.library.trash(old)
    fill(store)
    session.library.rename(old, LONG)
    assert len(session.writes) == 1
    heard = listen(session)

    with pytest.raises(UserError, match="Cannot change the Trash until"):
        session.library.clean()

    assert store.get_conversation(old) is not None  # nothing ran ahead of the queue
    assert not changes_heard(heard)
    free(store)
    assert session.writes.flush()
    stored = store.get_conversation(old)
    assert stored is not None and stored.title == LONG.strip()
    heard.clear()
    assert session.library.clean() == ([old], [])
    assert store.get_conversation(old) is None
    (fact,) = changes_heard(heard)
    assert fact.conversation_id == old and fact.aspects == {"listed"}

"""A message's files wait with it when the disk is full, and are stored with it when
there is room again (SPEC §11, §13): the session's one writer on a real SQLite file made
full with ``PRAGMA max_page_count``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ikgui.domain.session.pending import is_provisional
from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings
from ikgui.storage import open_store
from ikgui.storage.repository import SqliteStore
from tests.storage.test_pending_writes import fill, free
from tests.storage.test_store_files import NOTES, PNG


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = open_store(tmp_path / "ikgui.db")
    yield s
    s.close()


def test_a_message_and_its_files_wait_together_for_room(store: SqliteStore, tmp_path: Path) -> None:
    session = Session(store, Settings(default_provider="local", default_model="m"))
    session.new_conversation()
    session.current.append("user", "kept before")
    conv_id = session.conversation.id
    fill(store)
    data = {"attachments": [PNG.attachment.data(), NOTES.attachment.data()]}
    event = session.current.append("user", "what are these?", data, files=(PNG, NOTES))
    assert is_provisional(event.id) and session.writes
    # Shown at once, with its files listed; nothing of it is stored yet.
    assert session.state.scrollback[-1].data["attachments"] == data["attachments"]
    assert store.has_files([PNG.sha256, NOTES.sha256]) == set()
    free(store)
    session.writes.retry_now()
    assert not session.writes
    with open_store(tmp_path / "ikgui.db") as fresh:
        assert [e.content for e in fresh.events(conv_id)] == ["kept before", "what are these?"]
        assert fresh.read_files([PNG.sha256, NOTES.sha256]) == {
            PNG.sha256: PNG,
            NOTES.sha256: NOTES,
        }

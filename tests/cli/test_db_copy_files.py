"""``ikgui db copy`` carries attached files (SPEC §13): each once, with the events'
references to them, searchable in the copy; a second run copies none again. Real SQLite
files and a real PostgreSQL server (``pg_url``)."""

from __future__ import annotations

from pathlib import Path

from ikgui.storage import open_store
from ikgui.storage.copy import copy_history
from tests.storage.test_store_files import NOTES, PNG, count, new_conversation, send


def test_files_travel_both_ways_once(tmp_path: Path, pg_url: str) -> None:
    with open_store(tmp_path / "source.db") as source:
        one, two = new_conversation(source, "c1"), new_conversation(source, "c2")
        send(source, one, "what is this?", PNG, NOTES)
        send(source, two, "and this?", PNG, named="again.png")
        with open_store(pg_url) as server:
            copied = copy_history(source.database, server.database, dest_kind="postgresql")
            assert copied.files == 2 and "copied 2 attached files" in copied.summary("there")
            assert count(server, "stored_file") == 2 and count(server, "event_file") == 3
            assert server.read_files([PNG.sha256, NOTES.sha256]) == {
                PNG.sha256: PNG,
                NOTES.sha256: NOTES,
            }
            assert [h.conversation.id for h in server.search("zeppelin")] == [one]
            assert [h.conversation.id for h in server.search("again")] == [two]
            again = copy_history(source.database, server.database, dest_kind="postgresql")
            assert again.files == 0 and count(server, "event_file") == 3
            with open_store(tmp_path / "back.db") as back:
                copy_history(server.database, back.database, dest_kind="sqlite")
                assert back.read_files([PNG.sha256])[PNG.sha256] == PNG
                assert [h.conversation.id for h in back.search("zeppelin")] == [one]
                assert [h.conversation.id for h in back.search("again")] == [two]
                assert count(back, "event_file") == 3
                # Removing one conversation in the copy keeps the file the other lists.
                back.delete_conversations([one])
                assert back.has_files([PNG.sha256, NOTES.sha256]) == {PNG.sha256}

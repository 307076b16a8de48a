"""A database opened read-only because its disk was full (issue 8, item 7): the window
opens, says so in its banner above everything else, and browses and searches as usual."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

import ikgui.storage
from ikgui.domain.events import Conversation
from ikgui.storage import SCHEMA_VERSION, SqliteStore, open_store
from ikgui.storage.readonly import open_read_only, read_only_message
from tests.support.fixtures import closed_url
from tests.ui.test_window import closed, opened, write_config

__all__ = ["closed_url"]


def opened_read_only(path: Path) -> SqliteStore:
    """What ``open_store`` gives when the disk is full: the same file, read-only."""
    return SqliteStore(open_read_only(path, SCHEMA_VERSION), path, read_only_message(path))


async def test_a_read_only_database_is_browsed_and_says_why(
    tmp_path: Path, closed_url: str, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    write_config(home, closed_url)  # and no model server answers
    with open_store(home / "ikgui.db") as store:
        store.insert_conversation(
            Conversation(id="chat-aaaa", title="Lighthouse notes", created_at=1.0, updated_at=1.0)
        )
        store.append_event("chat-aaaa", "user", "how tall is the lighthouse")
        store.append_event("chat-aaaa", "assistant", "about forty metres")
    monkeypatch.setattr(ikgui.storage, "open_store", opened_read_only)
    win = await opened(home)
    try:
        assert win.store.read_only  # type: ignore[attr-defined]
        text = win.banner.label.text()
        assert win.banner.isVisible() and text.startswith("Your conversations are open read-only")
        assert "the disk is full" in text and "restart ikgui" in text
        assert not win.banner.button.isVisible()
        assert win.current_id == "chat-aaaa"
        assert win.scrollback.item_texts()[-2:] == [
            "how tall is the lighthouse",
            "about forty metres",
        ]
        [hit] = win.store.search("forty")
        assert hit.conversation.id == "chat-aaaa"
    finally:
        await closed(win)
    with open_store(home / "ikgui.db") as store:  # nothing was written meanwhile
        assert [e.content for e in store.events("chat-aaaa")] == [
            "how tall is the lighthouse",
            "about forty metres",
        ]


async def test_a_folder_that_cannot_be_written_says_so_not_a_full_disk(
    tmp_path: Path, closed_url: str, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 8: opened read-only because its folder is on a read-only mount
    (``tests/cli/test_read_only_home.py`` mounts one), the banner names that."""
    from ikgui.storage.readonly import unwritable_message

    home = tmp_path / "home"
    write_config(home, closed_url)
    with open_store(home / "ikgui.db") as store:
        store.insert_conversation(Conversation(id="chat-aaaa", created_at=1.0, updated_at=1.0))
    why = unwritable_message(f"{home} is on a read-only file system")
    monkeypatch.setattr(
        ikgui.storage,
        "open_store",
        lambda path: SqliteStore(open_read_only(path, SCHEMA_VERSION), path, why),
    )
    win = await opened(home)
    try:
        assert win.banner.label.text() == (
            f"Your conversations are open read-only: {home} is on a read-only file system, "
            "so the database is open read-only. Browsing, searching and exporting work; make "
            "it writable and restart ikgui to write again."
        )
    finally:
        await closed(win)

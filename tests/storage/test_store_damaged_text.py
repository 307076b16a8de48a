"""A row whose text is not valid UTF-8 (a damaged page ``integrity_check`` misses) is
read with replacement characters, logged once, and breaks nothing else."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from ikgui.storage import open_store
from tests.cli.conftest import Cli

from .helpers import add_conversation

# "hello \xff\xfe world": two bytes that cannot start a UTF-8 character.
BAD = "CAST(x'68656c6c6f20fffe20776f726c64' AS TEXT)"


def damage(db_path: Path, conv_id: str) -> None:
    """Store invalid UTF-8 in a message, its index entry and the title, as a damaged
    page would leave them."""
    conn = sqlite3.connect(db_path)
    with conn:
        row = conn.execute(
            "INSERT INTO event (conversation_id, kind, content, data, created_at) "
            f"VALUES (?, 'user', {BAD}, NULL, 2000) RETURNING id",
            (conv_id,),
        ).fetchone()
        conn.execute(
            "INSERT INTO event_fts (rowid, content) SELECT id, content FROM event WHERE id = ?",
            row,
        )
        conn.execute(f"UPDATE conversation SET title = {BAD} WHERE id = ?", (conv_id,))
    conn.close()


def test_the_store_reads_damaged_text_with_replacement(
    db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with open_store(db_path) as store:
        add_conversation(store, "chat-bad1", title="fine")
        store.append_event("chat-bad1", "user", "hello before")
    damage(db_path, "chat-bad1")
    with caplog.at_level(logging.WARNING), open_store(db_path) as store:
        events = store.events("chat-bad1")
        assert [e.content for e in events] == ["hello before", "hello \ufffd\ufffd world"]
        conv = store.get_conversation("chat-bad1")
        assert conv is not None and conv.title == "hello \ufffd\ufffd world"
        assert [h.snippet for h in store.search("world")] == ["hello \ufffd\ufffd world"]
        assert [c.id for c in store.list_conversations()] == ["chat-bad1"]
    warnings = [r for r in caplog.records if "not valid UTF-8" in r.getMessage()]
    assert len(warnings) == 1 and str(db_path) in warnings[0].getMessage()


def test_the_command_line_shows_exports_and_searches_around_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(tmp_path / "home", capsys)
    conv_id = cli.new_id("/prompt", "p")
    damage(tmp_path / "home" / "ikgui.db", conv_id)
    shown = cli.ok("conv", "show", conv_id)
    assert "[You] hello \ufffd\ufffd world" in shown.out
    exported = cli.ok("conv", "export", conv_id).json
    assert exported["conversations"][0]["events"][-1]["content"] == "hello \ufffd\ufffd world"
    assert cli.ok("conv", "search", "world").out.startswith(conv_id)
    assert conv_id in cli.ok("conv", "list").out

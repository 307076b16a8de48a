"""One send reads the conversation's row at most once (issue 22, item 9): the facts of
a send carry the conversation's stored fields and the sidebar shows them without
reading the row again (it read it 4 times per send: the user's message, the reply's
start, its end, and the model title's check, which is the one read left)."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from tests.support.counting import count_reads
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.test_window import closed, opened, reply, settle, texts, type_and_send, write_config

__all__ = ["wire_server", "wire_server_session"]


async def test_one_send_reads_the_conversation_row_at_most_once(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("an ", "answer"))
    win = await opened(home)
    try:
        await type_and_send(qtbot, win, "first")
        await settle(win)
        conv_id = win.current_id
        assert conv_id is not None
        reads = count_reads(win.store)

        await type_and_send(qtbot, win, "second")
        await settle(win)

        assert texts(win)[-2:] == ["second", "an answer"]
        assert reads.of(conv_id) <= 1
        shown = win.sidebar.model.conversation(win.sidebar.model.index_of(conv_id))
        stored = win.store.get_conversation(conv_id)
        assert shown is not None and stored is not None
        assert (shown.title, shown.message_count, shown.updated_at) == (
            stored.title,
            4,
            stored.updated_at,
        )
    finally:
        await closed(win)

"""A draft ends when its text is sent (issue 20, item 6): a first message typed slowly
(its draft saved in the window's state file while typing) and sent leaves no "New
conversation · draft" row holding the sent text, not even after a restart, and no
draft that one more Enter would send twice. The same for a saved conversation's draft."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_new_and_trash import new_row_shown
from tests.ui.test_window import closed, opened, reply, settle, texts, write_config

__all__ = ["wire_server", "wire_server_session"]


async def test_a_sent_first_message_leaves_no_draft_behind(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("an answer"))
    first = await opened(home)
    state = first.services.ui_state
    try:
        first.prompt.setFocus()
        for word in ("draw ", "a ", "cat"):  # slowly: each pause saves the draft
            qtbot.keyClicks(first.prompt, word)
            await wait_until(
                lambda: state.value("draft_unsaved", "", type=str) == first.prompt.toPlainText()
            )
        assert not first.session.saved
        qtbot.keyClick(first.prompt, Qt.Key.Key_Return)
        await settle(first)
        assert texts(first)[-2:] == ["draw a cat", "an answer"]
        await wait_until(lambda: not first.drafts._draft_timer.isActive())
        assert state.value("draft_unsaved", "", type=str) == ""
        assert not new_row_shown(first)
        conv = first.current_id
    finally:
        await closed(first)

    second = await opened(home)
    try:
        assert not new_row_shown(second)
        second.runner.run("new", agent=None)
        await settle(second)
        assert second.prompt.toPlainText() == ""  # nothing to send twice
        assert second.store.get_conversation(conv).draft == ""  # type: ignore[union-attr]
    finally:
        await closed(second)

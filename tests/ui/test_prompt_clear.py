"""Clear ends an unsaved working-prompt edit (issue 20, item 7). The acceptance
scenario: an agent in a prompt mode, an edit typed in the panel and not saved, Clear,
send: no edit notice is sent. The edit is kept behind "Restore unsaved edit" (across a
restart too); restored, it is an unsaved edit again, told to the model only when sent."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.test_window import closed, opened, reply, settle, type_and_send, write_config
from tests.ui.test_working_prompt import _drafted

__all__ = ["wire_server", "wire_server_session"]


def sent_notices(server: WireServer) -> list[str]:
    return [
        m["content"]
        for m in server.bodies()[-1]["messages"]
        if "user edited prompt" in str(m["content"])
    ]


async def edit_and_clear(win: MainWindow, server: WireServer, qtbot: QtBot) -> None:
    await _drafted(win, server, qtbot, "a red fox")
    editor = win.working.editor
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, "a blue fox")  # not saved
    assert win.session.prompt_edited and win.working.indicator.isVisible()
    win.toolbar_actions["actionClear"].trigger()
    await settle(win)


async def test_clear_then_send_sends_no_edit_notice_and_offers_the_edit_back(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        await edit_and_clear(win, wire_server, qtbot)
        working = win.working
        assert not win.session.prompt_edited and not working.indicator.isVisible()
        assert working.editor.toPlainText() == ""
        assert working.restore_edit_button.isVisible()

        wire_server.route("/v1/chat/completions", reply("Fresh start."))
        await type_and_send(qtbot, win, "something new")
        await settle(win)
        assert sent_notices(wire_server) == []
        kinds = [e.kind for e in win.store.events(win.current_id)]
        assert Kind.PROMPT_EDIT not in kinds
        assert working.restore_edit_button.isVisible()  # still there to take back
        conv = win.current_id
    finally:
        await closed(win)

    again = await opened(home)
    try:
        assert again.current_id == conv
        working = again.working
        assert working.restore_edit_button.isVisible() and working.editor.toPlainText() == ""
        working.restore_edit_button.click()
        await settle(again)
        assert working.editor.toPlainText() == "a blue fox"
        assert again.session.prompt_edited and working.indicator.isVisible()
        assert not working.restore_edit_button.isVisible()
        wire_server.route("/v1/chat/completions", reply("Blue it is."))
        await type_and_send(qtbot, again, "use it")
        await settle(again)
        assert sent_notices(wire_server) == ['[user edited prompt to: "a blue fox"]']
    finally:
        await closed(again)

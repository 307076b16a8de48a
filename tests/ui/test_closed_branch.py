"""A closed branch in the window (issue 12, item 4): "This branch is closed" with
Reopen, the prompt editor disabled, a send refused by the domain; Reopen (the button,
or /reopen typed in the parent) restores it, and a fresh replay agrees."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.events import STATUS_ACTIVE, STATUS_KILLED, Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.replay import replay_conversation
from ikgui.storage import open_store
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]


async def closed_child(window: MainWindow, wire_server: WireServer, qtbot: QtBot) -> str:
    wire_server.route("/v1/chat/completions", reply("root reply"))
    await type_and_send(qtbot, window, "root question")
    await settle(window)
    window.toolbar_actions["actionFork"].trigger()
    await settle(window)
    child = window.current_id
    window.sidebar.close_requested.emit(child)  # the row's "Close branch"
    await settle(window)
    assert window.current_id != child  # closing switched to the parent
    window.open_conversation(child)
    await settle(window)
    return child


async def test_a_closed_branch_shows_the_strip_and_refuses_a_send(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    strip = window.pane.closed_strip
    assert strip.isHidden() and window.prompt.isEnabled()
    child = await closed_child(window, wire_server, qtbot)
    assert window.session.conversation.status == STATUS_KILLED
    assert not strip.isHidden() and strip.isVisible()
    assert strip.label.text().startswith("This branch is closed")
    assert not window.prompt.isEnabled() and not window.send_button.isEnabled()
    assert not window.toolbar_actions["actionFork"].isEnabled()
    assert not window.toolbar_actions["actionMark"].isEnabled()
    asked = len(wire_server.requests)
    before = window.session.store.events(child)

    window.run_line("sneaked in")  # what Enter would do, were the editor enabled
    await settle(window)
    assert window.feedback.text() == f"Error: Conversation is closed: {child}"
    assert window.session.store.events(child) == before
    assert len(wire_server.requests) == asked


async def test_reopen_button_restores_the_branch(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    child = await closed_child(window, wire_server, qtbot)
    strip = window.pane.closed_strip
    qtbot.mouseClick(strip.button, Qt.MouseButton.LeftButton)
    await settle(window)
    assert window.session.conversation.status == STATUS_ACTIVE
    stored = window.session.store.get_conversation(child)
    assert stored is not None and stored.status == STATUS_ACTIVE
    assert strip.isHidden() and window.prompt.isEnabled() and window.send_button.isEnabled()
    parent = window.session.conversation.parent
    assert parent is not None
    assert window.session.store.events(parent)[-1].kind == Kind.AGENT_REOPENED

    wire_server.route("/v1/chat/completions", reply("branch reply"))
    await type_and_send(qtbot, window, "go on")
    await settle(window)
    assert texts(window)[-2:] == ["go on", "branch reply"]
    fresh = replay_conversation(window.session.store, child)
    assert [e.id for e in fresh.scrollback] == [e.id for e in window.session.state.scrollback]


async def test_slash_reopen_in_the_parent_shows_the_notice(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    child = await closed_child(window, wire_server, qtbot)
    parent = window.session.conversation.parent
    assert parent is not None
    window.open_conversation(parent)
    await settle(window)
    await type_and_send(qtbot, window, f"/reopen {child}")
    await settle(window)
    title = window.store.get_conversation(child).title  # type: ignore[union-attr]
    assert texts(window)[-2:] == [f"Closed “{title}”", f"Reopened “{title}”"]  # by title
    assert window.scrollback.item_kinds()[-1] == Kind.AGENT_REOPENED
    window.open_conversation(child)
    await settle(window)
    assert window.pane.closed_strip.isHidden() and window.prompt.isEnabled()


async def test_a_branch_reopened_by_another_process_takes_input_again(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    child = await closed_child(window, wire_server, qtbot)
    assert not window.pane.closed_strip.isHidden()
    other = open_store(window.store.path)  # type: ignore[attr-defined]
    try:
        elsewhere = Session(other, registry=default_registry())
        elsewhere.open(child)
        elsewhere.reopen()  # what `ikgui conv reopen` does
    finally:
        other.close()
    window.watcher.poll_external_changes()  # the window's poll timer, now
    await settle(window)
    assert window.pane.closed_strip.isHidden() and window.prompt.isEnabled()


async def test_the_closed_row_s_menu_reopens_it(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    child = await closed_child(window, wire_server, qtbot)
    parent = window.session.conversation.parent
    assert parent is not None
    window.open_conversation(parent)
    await settle(window)
    menu = window.sidebar.menu_for(window.sidebar.model.index_of(child))
    assert menu is not None
    actions = {a.objectName(): a for a in menu.actions() if a.objectName()}
    assert "closeAction" not in actions
    actions["reopenAction"].trigger()
    await settle(window)
    stored = window.store.get_conversation(child)
    assert stored is not None and stored.status == STATUS_ACTIVE
    assert texts(window)[-1] == f"Reopened “{stored.title}”"

"""Issue 25 item 3 (SPEC §14): search finds text in every alternative, and opening a hit
in a retried reply that is not the one shown chooses it — a ``choose`` event, so it is
on screen, in the context and still chosen after a replay. Against the real model
server, the real window and a real SQLite file."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.domain.state.replay import replay_conversation
from ikgui.ui.sidebar.rows import EventIdRole, IdRole
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.waiting import wait_until
from tests.support.wire_server import WireServer
from tests.ui.test_sidebar import db_path, store
from tests.ui.test_window import reply, settle, type_and_send, window

__all__ = ["db_path", "store", "window", "wire_server", "wire_server_session"]


async def test_opening_a_hit_in_an_earlier_attempt_chooses_it(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("Ultramarine from lapis"))
    await type_and_send(qtbot, window, "Where does blue paint come from?")
    await settle(window)
    session = window.session
    for answer in ("Cobalt salts", "Prussian blue, by accident"):
        wire_server.route("/v1/chat/completions", reply(answer))
        await session.retry(session.state.context[-1].id)
        await settle(window)
    assert session.state.context[-1].content == "Prussian blue, by accident"
    conv_id = session.conversation.id
    events = window.session.store.events(conv_id)
    lapis = next(e for e in events if e.content == "Ultramarine from lapis")
    assert not session.show_alternative_of(session.state.context[-1].id)  # shown: nothing to do

    sidebar = window.sidebar
    sidebar.search_box.setText("lapis")
    sidebar._run_search()
    await wait_until(lambda: sidebar.search_model.rowCount() == 1)
    hit = sidebar.search_model.index(0, 0)
    assert hit.data(IdRole) == conv_id and hit.data(EventIdRole) == lapis.id
    sidebar.view.activated.emit(hit)
    sidebar.view.clicked.emit(hit)
    await settle(window)

    assert session.state.context[-1].id == lapis.id  # shown, and sent from now on
    chosen = window.session.store.events(conv_id)[-1]
    assert chosen.kind == Kind.CHOOSE and chosen.data["chosen_event_id"] == lapis.id
    assert replay_conversation(window.session.store, conv_id).context[-1].id == lapis.id
    # opening it again records nothing more
    window.open_conversation(conv_id, lapis.id)
    await settle(window)
    assert window.session.store.events(conv_id)[-1].id == chosen.id

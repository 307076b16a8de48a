"""Event ids cross Qt signals whole: a change waiting to be written has a provisional id
above every real one (2**52 and up), which a 32-bit ``int`` signal cannot carry."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from ikgui.domain.events import Event, Kind
from ikgui.domain.session.pending import PROVISIONAL_BASE
from ikgui.domain.session.session import Session
from ikgui.ui.bridge import SessionBridge
from tests.support.memstore import MemoryStore


def test_deltas_of_a_waiting_reply_reach_the_window_with_its_provisional_id(
    qtbot: QtBot,
) -> None:
    session = Session(MemoryStore())
    session.new_conversation()
    bridge = SessionBridge(session, interval=1)
    got: list[tuple[int, str]] = []
    bridge.deltas_arrived.connect(lambda event_id, text: got.append((event_id, text)))
    waiting = Event(PROVISIONAL_BASE + 7, session.conversation.id, Kind.ASSISTANT, "", {})
    for piece in ("Hel", "lo"):
        session.emit_delta(waiting, piece)
    bridge.flush()
    assert got == [(PROVISIONAL_BASE + 7, "Hello")]

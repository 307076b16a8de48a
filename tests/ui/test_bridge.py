"""The Qt bridge dispatches on the domain's typed facts (issue 9): the same signals as
before, plus the transcript change the domain describes."""

from __future__ import annotations

from typing import Any

from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.facts import Changed, StreamFinished, TranscriptChange
from ikgui.ui.bridge import SessionBridge
from tests.support.memstore import MemoryStore


def test_the_bridge_reemits_typed_facts_as_its_signals(qtbot: Any) -> None:
    session = Session(MemoryStore())
    bridge = SessionBridge(session, interval=1)
    got: list[tuple[str, Any]] = []
    bridge.event_appended.connect(lambda e: got.append(("appended", e)))
    bridge.transcript_changed.connect(lambda c: got.append(("change", c)))
    bridge.conversation_changed.connect(lambda c, _known: got.append(("changed", c)))
    bridge.conversation_switched.connect(lambda: got.append(("switched", None)))
    bridge.activity.connect(lambda c, _known: got.append(("activity", c)))
    first = session.append(Kind.USER, "one")
    conv = session.conversation.id
    session.mark("m")
    session.append(Kind.USER, "two")
    rewind = session.rewind("m")
    session.update_fields(title="t")
    session.new_conversation()
    assert got[:4] == [
        ("activity", conv),
        ("appended", first),
        ("change", TranscriptChange((first,))),
        ("changed", conv),  # the title its first message gave it
    ]
    (change,) = [c for name, c in got if name == "change" and c.appended == (rewind,)]
    assert change.collapsed is not None and change.collapsed.label == "1 item rewound"
    assert got[-2:] == [("changed", conv), ("switched", None)]


def test_deltas_are_coalesced_and_a_finished_stream_flushes_them(qtbot: Any) -> None:
    session = Session(MemoryStore())
    bridge = SessionBridge(session, interval=10_000)
    reply = session.append(Kind.ASSISTANT, "", {"streaming": True})
    deltas: list[tuple[int, str]] = []
    states: list[tuple[str, bool]] = []
    bridge.deltas_arrived.connect(lambda i, t: deltas.append((i, t)))
    bridge.stream_state_changed.connect(lambda c, s: states.append((c, s)))
    session.emit_delta(reply, "a")
    session.emit_delta(reply, "b")
    assert deltas == []
    session.current.announce(StreamFinished(session.conversation.id))
    assert deltas == [(reply.id, "ab")]
    assert states == [(session.conversation.id, False)]


def test_each_change_is_also_passed_on_whole(qtbot: Any) -> None:
    session = Session(MemoryStore())
    bridge = SessionBridge(session, interval=1)
    got: list[Changed] = []
    bridge.changed.connect(got.append)
    event = session.append(Kind.USER, "one")
    session.update_fields(title="t")
    assert [c.aspects for c in got] == [{"events", "title"}, {"title"}]
    assert got[0].events == (event,) and got[1].conversation == session.conversation

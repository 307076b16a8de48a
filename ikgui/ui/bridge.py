"""The bridge from the Qt-free session to Qt: session facts re-emitted as signals.

Streaming deltas are coalesced (every ``interval`` ms, default 40) so the view appends
a few times a second however fast tokens come; deltas of conversations that are not
on screen are dropped, and the growing reply's periodic saves are not forwarded (the
view already shows that text).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from ikgui.domain.events import Kind
from ikgui.domain.session import Session, SessionEvent


class SessionBridge(QObject):
    event_appended = Signal(object)  # Event of the conversation on screen
    event_updated = Signal(object)  # Event of the conversation on screen
    deltas_arrived = Signal(int, str)  # event id, the text since the last flush
    conversation_switched = Signal()
    conversation_changed = Signal(str)  # conv id: title, tags, status, trash
    stream_state_changed = Signal(str, bool)  # conv id, streaming
    activity = Signal(str)  # conv id that got an event (any conversation)
    writes_changed = Signal()  # the queue of changes not saved yet (session.writes) changed
    state_replaced = Signal()  # the current state was replayed again (saved at last)
    send_waiting = Signal(str)  # conv id: a send waits for another process's reply

    def __init__(self, session: Session, interval: int = 40, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self._pending: dict[int, list[str]] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval)
        self._timer.timeout.connect(self.flush)
        session.subscribe(self._on_fact)

    def _on_screen(self, conv_id: str | None) -> bool:
        return conv_id == self.session.conversation.id

    def _on_fact(self, fact: SessionEvent) -> None:
        name = fact.name
        if name == "delta_received":
            if fact.event is not None and self._on_screen(fact.conversation_id):
                self._pending.setdefault(fact.event.id, []).append(fact.text)
                if not self._timer.isActive():
                    self._timer.start()
            return
        if name == "event_appended" and fact.event is not None:
            self.activity.emit(fact.conversation_id or "")
            if self._on_screen(fact.conversation_id):
                self.event_appended.emit(fact.event)
        elif name == "event_updated" and fact.event is not None:
            event = fact.event
            if event.kind == Kind.ASSISTANT and event.data.get("streaming"):
                return  # a periodic save of text the view already has
            self._pending.pop(event.id, None)
            self.activity.emit(fact.conversation_id or "")
            if self._on_screen(fact.conversation_id):
                self.event_updated.emit(event)
        elif name == "conversation_switched":
            self._pending.clear()
            self.conversation_switched.emit()
        elif name == "conversation_changed":
            self.conversation_changed.emit(fact.conversation_id or "")
        elif name == "writes_pending":
            self.writes_changed.emit()
        elif name == "state_replaced":
            self.state_replaced.emit()
        elif name == "send_waiting":
            self.send_waiting.emit(fact.conversation_id or "")
        elif name in ("stream_started", "stream_finished"):
            if name == "stream_finished":
                self.flush()
            self.stream_state_changed.emit(fact.conversation_id or "", name == "stream_started")

    def flush(self) -> None:
        pending, self._pending = self._pending, {}
        for event_id, parts in pending.items():
            self.deltas_arrived.emit(event_id, "".join(parts))


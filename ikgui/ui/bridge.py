"""The bridge from the Qt-free session to Qt: session facts re-emitted as signals.

Streaming deltas are coalesced (every ``interval`` ms, default 40) so the view appends
a few times a second however fast tokens come; deltas of conversations that are not
on screen are dropped, and the growing reply's periodic saves are not forwarded (the
view already shows that text) unless another process wrote them.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.facts import (
    Changed,
    ConversationSwitched,
    DeltaReceived,
    Fact,
    SendWaiting,
    StateReplaced,
    StreamFinished,
    StreamStarted,
    WritesPending,
)


class SessionBridge(QObject):
    #: Every change of a conversation, whole (a ``Changed``: its new fields when known,
    #: the transcript change, the aspects that changed), before the signals below.
    changed = Signal(object)
    event_appended = Signal(object)  # Event of the conversation on screen
    #: How the transcript on screen changed (a ``TranscriptChange``), right after
    #: ``event_appended``: if ``change.collapsed`` is set, the items shown from its start
    #: on became that one collapsed group (in place); then append ``change.appended``.
    transcript_changed = Signal(object)
    event_updated = Signal(object)  # Event of the conversation on screen
    deltas_arrived = Signal(object, str)  # event id (may be above 2**31), the new text
    conversation_switched = Signal()
    #: Conv id whose fields changed (title, tags, status, trash...), and its fields as
    #: stored now when the session knows them (a ``Conversation``; ``None``: read the row).
    conversation_changed = Signal(str, object)
    stream_state_changed = Signal(str, bool)  # conv id, streaming
    #: Conv id that got an event (any conversation), and its fields as stored now when
    #: the session knows them (a ``Conversation``; ``None``: read the row).
    activity = Signal(str, object)
    writes_changed = Signal()  # the queue of changes not saved yet (session.writes) changed
    state_replaced = Signal()  # the current state was replayed again (saved at last)
    state_replayed = Signal()  # replayed at last, after a preview was shown (tail first)
    send_waiting = Signal(str)  # conv id: a send waits for another process's reply
    #: Every fact, before the signals above that it causes (the window's state reads it).
    fact = Signal(object)

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

    def _on_fact(self, fact: Fact) -> None:
        self.fact.emit(fact)
        match fact:
            case DeltaReceived(conversation_id=conv_id, event=event, text=text):
                if self._on_screen(conv_id):
                    self._pending.setdefault(event.id, []).append(text)
                    if not self._timer.isActive():
                        self._timer.start()
            case Changed():
                self._on_changed(fact)
            case ConversationSwitched():
                self._pending.clear()
                self.conversation_switched.emit()
            case WritesPending():
                self.writes_changed.emit()
            case StateReplaced():
                self.state_replayed.emit()
            case SendWaiting(conversation_id=conv_id):
                self.send_waiting.emit(conv_id or "")
            case StreamStarted(conversation_id=conv_id):
                self.stream_state_changed.emit(conv_id or "", True)
            case StreamFinished(conversation_id=conv_id):
                self.flush()
                self.stream_state_changed.emit(conv_id or "", False)

    def _on_changed(self, fact: Changed) -> None:
        """One change of a conversation, as the signals the window listens to."""
        self.changed.emit(fact)
        conv_id = fact.conversation_id or ""
        updated = [
            event
            for event in fact.updated
            # (a periodic save of text the view already has is not told)
            if not (event.kind == Kind.ASSISTANT and fact.growing(event) and not fact.elsewhere)
        ]
        unseen = "events" in fact.aspects and not fact.events  # (a reader reads them)
        if fact.appended or updated or unseen:
            self.activity.emit(conv_id, fact.conversation)
        on_screen = self._on_screen(conv_id)
        for event, change in fact.appended:
            if on_screen:
                self.event_appended.emit(event)
                if change is not None:
                    self.transcript_changed.emit(change)
        for event in updated:
            self._pending.pop(event.id, None)
            if on_screen:
                self.event_updated.emit(event)
        if fact.aspects - {"events", "replayed"}:
            self.conversation_changed.emit(conv_id, fact.conversation)
        if "replayed" in fact.aspects and on_screen:
            self.state_replaced.emit()

    def flush(self) -> None:
        pending, self._pending = self._pending, {}
        for event_id, parts in pending.items():
            self.deltas_arrived.emit(event_id, "".join(parts))

"""What the session tells its listeners: one small frozen dataclass per fact.

Listeners (the Qt bridge, ``ikgui run``'s printer) dispatch on the type
(``isinstance`` or ``match``). Each class keeps a ``name`` (the old string) for
readers that only log facts. A change to the transcript of the conversation on screen
comes with a :class:`TranscriptChange` saying what the fold did, so no view has to
re-derive it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ikgui.domain.events import Conversation, Event
from ikgui.domain.state.transcript import Group


@dataclass(frozen=True)
class TranscriptChange:
    """How the window's transcript of the conversation on screen changed with one event.

    ``collapsed``: a rewind, clear or retry took items out of the context: every item
    shown from ``collapsed.start`` on became this one collapsed group (it stays where
    they were; the view replaces them in place). ``appended``: the events now shown at
    the end, after the group if there is one (empty when the fold hid the event, e.g. a
    rewind to a mark that is gone).
    """

    appended: tuple[Event, ...] = ()
    collapsed: Group | None = None


@dataclass(frozen=True)
class Fact:
    """Base of every fact: the conversation it is about (``None``: not one in particular)."""

    conversation_id: str | None
    name: ClassVar[str] = ""


@dataclass(frozen=True)
class EventAppended(Fact):
    """An event was committed (or queued) to a conversation (any, not just on screen)."""

    event: Event
    #: How the scrollback on screen changed (``None``: another conversation's event).
    change: TranscriptChange | None = None
    #: The conversation's fields as stored now (``None``: not known here; read them).
    conversation: Conversation | None = None
    name: ClassVar[str] = "event_appended"


@dataclass(frozen=True)
class EventUpdated(Fact):
    """A growing reply was saved or finished (``event`` is its new form)."""

    event: Event
    #: Written by another process (:mod:`ikgui.domain.session.elsewhere`): the view has not
    #: seen its text yet, even while it grows.
    elsewhere: bool = False
    #: The conversation's fields as stored now (``None``: not known here; read them).
    conversation: Conversation | None = None
    name: ClassVar[str] = "event_updated"

    @property
    def growing(self) -> bool:
        """A periodic save of a streaming reply (the view already shows that text,
        unless it was written ``elsewhere``)."""
        return bool(self.event.data.get("streaming"))


@dataclass(frozen=True)
class DeltaReceived(Fact):
    """New text of a streaming reply (not stored yet)."""

    event: Event
    text: str
    name: ClassVar[str] = "delta_received"


@dataclass(frozen=True)
class StreamStarted(Fact):
    name: ClassVar[str] = "stream_started"


@dataclass(frozen=True)
class StreamFinished(Fact):
    name: ClassVar[str] = "stream_finished"


@dataclass(frozen=True)
class ConversationSwitched(Fact):
    """Another conversation is on screen (``conversation_id``)."""

    name: ClassVar[str] = "conversation_switched"


@dataclass(frozen=True)
class ConversationChanged(Fact):
    """A conversation's fields changed: title, tags, status, trash, or it is listed now."""

    #: The conversation's fields as stored now (``None``: not known here; read them).
    conversation: Conversation | None = None
    name: ClassVar[str] = "conversation_changed"


@dataclass(frozen=True)
class WritesPending(Fact):
    """The queue of changes not saved yet (``Session.writes``) changed."""

    name: ClassVar[str] = "writes_pending"


@dataclass(frozen=True)
class StateReplaced(Fact):
    """The current state was replayed again (saved at last, or another process's reply
    came first): show the scrollback again. ``deferred``: the first replay of a
    conversation opened with its replay deferred (the window showed a preview)."""

    name: ClassVar[str] = "state_replaced"
    deferred: bool = False


@dataclass(frozen=True)
class SendWaiting(Fact):
    """Another process writes a reply in this conversation: the send waits."""

    name: ClassVar[str] = "send_waiting"


#: The old name, for listeners' annotations.
SessionEvent = Fact

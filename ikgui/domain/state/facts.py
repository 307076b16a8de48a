"""What the session tells its listeners: one small frozen dataclass per fact.

Listeners (the Qt bridge, ``ikgui run``'s printer) dispatch on the type
(``isinstance`` or ``match``). Each class keeps a ``name`` (the old string) for
readers that only log facts. A change to the transcript of the conversation on screen
comes with a :class:`TranscriptChange` saying what the fold did, so no view has to
re-derive it.

A change of a conversation is one fact, :class:`Changed`, whatever the operation
(anki's ``OpChanges`` is the model): it carries the conversation's new fields when they
are known, the transcript's change and the aspects that changed, so each view takes what
it shows from it and skips what did not change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from ikgui.domain.events import Conversation, Event
from ikgui.domain.state.transcript import Entry, Group


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
    #: A retry or a switch of alternatives replaced what followed a message (SPEC §14):
    #: every item shown after the event ``replaced_after`` gives way to ``reshown``
    #: (events and groups, in order; the other fields are then empty).
    reshown: tuple[Entry, ...] | None = None
    replaced_after: int = 0


@dataclass(frozen=True)
class Fact:
    """Base of every fact: the conversation it is about (``None``: not one in particular)."""

    conversation_id: str | None
    name: ClassVar[str] = ""


#: The aspects of a conversation a :class:`Changed` may name, and what each means.
ASPECTS: dict[str, str] = {
    "events": "events were appended or updated (the transcript, the counts, its time)",
    "title": "its title",
    "tags": "its tags",
    "pinned": "pinned or not",
    "trash": "moved to the Trash or restored",
    "status": "closed (/kill) or reopened",
    "usage": "tokens and cost",
    "model": "its agent, provider or model",
    "project": "the settings of the project it is in (its tools, its system prompt), or "
    "of any project when a folder moved",
    "drafts": "the message typed and not sent, the working prompt's unsaved edits",
    "listed": "its row appeared or went (stored at last, imported, removed for good)",
    "fields": "another stored field (its parent, its fork point)",
    "replayed": "its state was replayed from the store (written at last, or by another "
    "process): show its transcript again",
}

#: Which aspect a change of each ``Conversation`` field is (the rest: ``"fields"``).
FIELD_ASPECTS: dict[str, str] = {
    "title": "title",
    "title_by_user": "title",
    "tags": "tags",
    "pinned": "pinned",
    "trashed_at": "trash",
    "status": "status",
    "tokens_input": "usage",
    "tokens_output": "usage",
    "cost": "usage",
    "agent": "model",
    "provider": "model",
    "model": "model",
    "draft": "drafts",
    "prompt_draft": "drafts",
    "prompt_set_aside": "drafts",
}
#: Fields that follow the events (a change of them alone is no aspect of its own).
_FOLLOW_EVENTS = frozenset({"updated_at", "message_count", "created_at", "id"})


def aspects_of(fields: Iterable[str]) -> frozenset[str]:
    """The aspects that a change of these ``Conversation`` fields is."""
    return frozenset(
        FIELD_ASPECTS.get(name, "fields") for name in fields if name not in _FOLLOW_EVENTS
    )


@dataclass(frozen=True)
class Changed(Fact):
    """What one operation changed in conversation ``conversation_id`` (any, not just
    the one on screen): the one fact of a change, told once per operation and
    conversation by :meth:`~ikgui.domain.session.open_conversation.OpenConversation.apply`.
    """

    #: The conversation's fields as stored now (``None``: not known here; read them).
    conversation: Conversation | None = None
    #: Events appended (committed or queued), oldest first, each with how the
    #: transcript on screen changed (``None``: not the conversation on screen).
    appended: tuple[tuple[Event, TranscriptChange | None], ...] = ()
    #: Events whose content changed, in their new form (a reply's growth or end).
    updated: tuple[Event, ...] = ()
    #: Written by another process (:mod:`ikgui.domain.session.elsewhere`): the view has
    #: not seen the updated text yet, even while it grows.
    elsewhere: bool = False
    #: What changed: names from :data:`ASPECTS`.
    aspects: frozenset[str] = frozenset()
    name: ClassVar[str] = "changed"

    @property
    def events(self) -> tuple[Event, ...]:
        """The events appended, then those updated."""
        return tuple(event for event, _ in self.appended) + self.updated

    @staticmethod
    def growing(event: Event) -> bool:
        """Whether ``event`` is a periodic save of a streaming reply (the view already
        shows that text, unless it was written ``elsewhere``)."""
        return bool(event.data.get("streaming"))


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
class WritesPending(Fact):
    """The queue of changes not saved yet (``Session.writes``) changed."""

    name: ClassVar[str] = "writes_pending"


@dataclass(frozen=True)
class StateReplaced(Fact):
    """The first replay of a conversation opened with its replay deferred (the window
    showed a preview, :mod:`ikgui.domain.session.tail_first`): show the scrollback.
    Any later replay is a change, told as a ``Changed`` that was "replayed"."""

    name: ClassVar[str] = "state_replaced"
    deferred: bool = True


@dataclass(frozen=True)
class SendWaiting(Fact):
    """Another process writes a reply in this conversation: the send waits."""

    name: ClassVar[str] = "send_waiting"


#: The old name, for listeners' annotations.
SessionEvent = Fact

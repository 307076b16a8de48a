"""What one operation did to a conversation, as a value (anki's ``OpChanges`` is the model).

Every operation (a send's events, a reply's growth and end, a mark, a rewind, a clear, a
fork, a kill, a reopen, a rename, tags, a pin, the Trash, usage, another process's rows)
describes what it changes as :class:`Changes`:
:meth:`ikgui.domain.session.open_conversation.OpenConversation.apply` is the one place
that writes its changes of fields (``writes``: :class:`StoreWrite`, through the
write-behind queue), folds its events into the live state, takes the conversation's new
fields and tells the listeners, so the fold and the facts are written once. Several
conversations changed at once (a selection pinned, a kill's branches) are one store call
and one ``Changed`` each.

When all of a conversation's changes are in the store (none waits in the write-behind
queue), the facts carry its new fields, so a view that shows the stored row (the
sidebar) takes them instead of reading the row again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ikgui.domain.attachments import StoredFile
from ikgui.domain.events import Conversation, Event
from ikgui.domain.folders import Project
from ikgui.domain.state.facts import aspects_of

if TYPE_CHECKING:
    from ikgui.domain.ports import Store


@dataclass(frozen=True)
class StoreWrite:
    """A change of conversations' fields that the store makes in one transaction (a
    rename, tags, a pin, the Trash, a tag renamed everywhere): ``call`` makes it and
    returns what the operation needs back (``None`` once it waited in the queue)."""

    #: The conversations it changes, as far as the operation knows them.
    conv_ids: tuple[str, ...]
    #: What it is, in a few words (for the log and for a reader of the queue).
    what: str
    call: Callable[[Store], Any]
    #: What it changes (names from ``ikgui.domain.state.facts.ASPECTS``).
    aspects: frozenset[str] = frozenset({"fields"})
    #: Whether it may wait in the queue when the store refuses it (``False``: the
    #: operation needs its answer now, e.g. who had a tag, for Undo; it is refused).
    may_wait: bool = True

    @property
    def conv_id(self) -> str:
        return self.conv_ids[0] if self.conv_ids else ""


@dataclass(frozen=True)
class NewEvent:
    """An event to append to the conversation of its ``Changes`` (apply writes it, then
    folds what was written: its id comes from the store, or the queue's provisional one)."""

    kind: str
    content: str = ""
    data: Mapping[str, Any] | None = None
    #: The conversation's automatic title, set with it (a first message).
    title: str | None = None
    #: The open conversation is stored with it if it is not yet.
    materialize: bool = False
    #: Other conversations' fields set in the same transaction (conversation id,
    #: fields): the branches a ``/kill`` closes or a ``/reopen`` opens.
    fields: tuple[tuple[str, dict[str, Any]], ...] = ()
    #: A conversation stored with it, its first event (a fork's child).
    new: Conversation | None = None
    #: The bytes of files its data lists, stored with it in one transaction (SPEC §13).
    files: tuple[StoredFile, ...] = ()


@dataclass(frozen=True)
class Growth:
    """A growing reply's new text and data (``event``: as last written)."""

    event: Event
    content: str
    data: Mapping[str, Any]


#: What apply writes: events, a reply's growth, changes of fields.
Write = NewEvent | Growth | StoreWrite


@dataclass(frozen=True)
class Changes:
    """The events and fields one operation changed in conversation ``conversation_id``."""

    conversation_id: str
    #: Events appended (committed or queued), oldest first.
    appended: tuple[Event, ...] = ()
    #: Events whose content changed: (the event as last written, its new form; their
    #: ids differ once a reply queued under a provisional id is written).
    updated: tuple[tuple[Event, Event], ...] = ()
    #: Stored fields of the conversation that changed (``Conversation`` field names).
    fields: Mapping[str, Any] = field(default_factory=dict)
    #: Written by another process: the view has not seen the updated text yet, and the
    #: conversation's other fields (its title, say) are not known here.
    elsewhere: bool = False
    #: Aspects changed besides those of ``fields`` and the events (names from
    #: :data:`ikgui.domain.state.facts.ASPECTS`: ``"listed"`` for a row that appeared or
    #: went, ``"status"`` for branches a kill closed...).
    also: frozenset[str] = frozenset()
    #: The session knows the conversation's fields after these changes (``False``: the
    #: library changed or removed its row; a reader reads it).
    fields_known: bool = True
    #: The conversation's fields as stored after these changes, when the operation knows
    #: them (the library's operations on a conversation that is not open).
    conversation: Conversation | None = None
    #: What :meth:`~ikgui.domain.session.open_conversation.OpenConversation.apply` writes
    #: (now, or through the write-behind queue) before it folds and tells, in order: new
    #: events (appended to ``appended``), a reply's growth (to ``updated``), changes of
    #: fields (tags, a pin, the Trash; several conversations at once stay one call).
    #: ``appended`` and ``updated`` alone: written already (another process's rows).
    writes: tuple[Write, ...] = ()
    #: Other conversations the same operation changed (a selection pinned at once):
    #: each told in a ``Changed`` of its own.
    others: tuple[Changes, ...] = ()

    #: The conversation's state is replayed from the store again (what waited was
    #: written at last, under real ids; or another process wrote): nothing is folded.
    replayed: bool = False
    #: Every project's settings as just read from the store (``None``: not read; with
    #: the ``project`` aspect, the session reads them again when next asked).
    projects: tuple[Project, ...] | None = None

    def aspects(self) -> frozenset[str]:
        """Everything these changes change (see :data:`~ikgui.domain.state.facts.ASPECTS`)."""
        events = frozenset({"events"}) if self.appended or self.updated else frozenset()
        replayed = frozenset({"replayed"}) if self.replayed else frozenset()
        return events | replayed | aspects_of(self.fields) | self.also

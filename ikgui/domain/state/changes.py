"""What one operation did to a conversation, as a value (anki's ``OpChanges`` is the model).

An operation of the open conversation (a send's events, a reply's growth and end, a mark,
a rewind, a kill, a reopen, another process's rows) describes what it wrote as
:class:`Changes`; :meth:`ikgui.domain.session.open_conversation.OpenConversation.apply`
is the one place that folds them into the live state, takes the conversation's new
fields and tells the listeners, so the fold and the facts are written once.

When all of the open conversation's changes are in the store (none waits in the
write-behind queue), the facts carry its new fields, so a view that shows the stored row
(the sidebar) takes them instead of reading the row again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ikgui.domain.events import Conversation, Event
from ikgui.domain.state.facts import aspects_of


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
    fields: dict[str, Any] = field(default_factory=dict)
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

    def aspects(self) -> frozenset[str]:
        """Everything these changes change (see :data:`~ikgui.domain.state.facts.ASPECTS`)."""
        events = frozenset({"events"}) if self.appended or self.updated else frozenset()
        return events | aspects_of(self.fields) | self.also

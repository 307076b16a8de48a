"""What the views count, defined once, next to the fold (issue 22 item 2): which events
are messages, how many of a conversation's own messages are still in its context, and
how many a fork carries from its ancestors.

Storage keeps the result of :func:`after` with every event (the conversation's tally
after it) and on the conversation's row (the tally after its newest event), computed in
the transaction that appends the event; it sums and looks up these stored numbers and
never reads an event's kind. So a clear of a 10,000-event conversation writes one row,
not 10,000, and the sidebar reads its counts as columns.

The context rules follow :func:`ikgui.domain.state.replay.apply`: a clear empties the
context; a rewind goes back to its mark (the tally stored with the mark); a retry goes
back to just after the user message it answers (the tally stored with it; a message the
fork carries from its parent takes all of the fork's own ones out); a ``choose`` goes to
the context its attempt had (the tally stored with the attempt's newest event, which the
event names as ``context_event_id``). As stored numbers
cannot say whether a mark is still live, a rewind to a mark a later clear or rewind took
away is not skipped as the fold skips it; the domain never writes one
(``test_tally`` folds the logs the session writes and compares).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ikgui.domain.events import MESSAGE_KINDS, Event, Kind


@dataclass(frozen=True, slots=True)
class Tally:
    """One conversation's own counts: its messages, and how many of them are in its
    context (after a given event, or now)."""

    messages: int = 0
    context: int = 0


#: What storage knows of an earlier event: its kind and the tally stored with it, or
#: ``None`` when it is not one of the conversation's own events.
Lookup = Callable[[int], "tuple[str, Tally] | None"]


def is_message(kind: str, content: str) -> bool:
    """A user message, or a reply with text: the MSGS column (a reply row is created
    empty before its first delta, and one that fails before any text stays so)."""
    return kind == Kind.USER or (kind in MESSAGE_KINDS and bool(content))


def _target(event: Event) -> int | None:
    if not event.may_have("target_event_id"):
        return None
    target = event.data.get("target_event_id")
    return target if isinstance(target, int) and not isinstance(target, bool) else None


def after(before: Tally, event: Event, lookup: Lookup) -> Tally:
    """The conversation's tally once ``event`` (its newest) is appended; ``lookup``
    reads an earlier event's stored tally (called for rewinds and retries only)."""
    kind = event.kind
    if kind == Kind.CLEAR:
        return Tally(before.messages, 0)
    if kind == Kind.REWIND or kind == Kind.RETRY:
        target = _target(event)
        if target is None:
            return before  # malformed: the fold skips it
        found = lookup(target)
        if kind == Kind.REWIND:
            if found is None or found[0] != Kind.MARK:
                return before
            return Tally(before.messages, found[1].context)
        if found is None:  # a message the fork carries: all its own ones go
            return Tally(before.messages, 0)
        if found[0] != Kind.USER:
            return before
        return Tally(before.messages, found[1].context)
    if kind == Kind.CHOOSE:
        # Back to the context the chosen attempt had: the tally after its newest event.
        upto = event.data.get("context_event_id") if event.may_have("context_event_id") else None
        if not isinstance(upto, int) or isinstance(upto, bool):
            return before
        found = lookup(upto)
        return Tally(before.messages, found[1].context if found is not None else 0)
    if is_message(kind, event.content):
        return Tally(before.messages + 1, before.context + 1)
    return before


def grown(kind: str, old: str, new: str) -> int:
    """How a growing event's new text changes both counts (a reply's first text: +1)."""
    return int(is_message(kind, new)) - int(is_message(kind, old))


#: ``(parent, fork point)`` of a conversation, both ``None`` for a root.
ForkOf = Callable[[str], "tuple[str | None, int | None]"]
#: The messages a conversation has with ids up to a bound (its stored tally there).
MessagesUpto = Callable[[str, int], int]


def carried(conv_id: str, fork_of: ForkOf, messages_upto: MessagesUpto) -> int:
    """The messages a fork carries (as ``history.load_segments`` walks back): each
    ancestor's own messages up to the fork point, the lowest point on the way up."""
    parent, upto = fork_of(conv_id)
    total, seen = 0, {conv_id}
    while parent is not None and upto is not None and parent not in seen:
        seen.add(parent)
        total += messages_upto(parent, upto)
        grand, fork = fork_of(parent)
        parent, upto = grand, min(upto if fork is None else fork, upto)
    return total

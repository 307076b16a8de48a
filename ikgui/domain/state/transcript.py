"""The window's transcript (SPEC §4.4): the scrollback, plus every item a rewind, a clear
or a Retry took out of the context, kept where it was as one collapsed group.

The fold (:mod:`ikgui.domain.state.replay`) keeps this display list beside the scrollback
(``ReplayState.transcript``): shown events and :class:`Group` values, in log order. What
the model receives (the context) and ``conv show --json``'s scrollback are unchanged.

A group of items rewound, or of a failed attempt replaced by Retry, holds its events. A
group of items before a clear holds only their count: replay starts at the newest clear
(that is what keeps opening a long conversation fast), so its items are read from the
store when the group is expanded (:func:`cleared_items`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from ikgui.domain.events import Event, Kind
from ikgui.domain.ports import Store
from ikgui.domain.state.history import history_ranges, load_segments
from ikgui.domain.state.reading import shown


class GroupKind(StrEnum):
    REWOUND = "rewound"
    CLEARED = "cleared"
    RETRIED = "retried"


@dataclass(frozen=True)
class Group:
    """Items out of the context, shown collapsed where they were.

    ``key``: the id of the event that made the group (the rewind, clear or retry), unique
    and the same live and after a restart. ``events``: its items (empty for a cleared
    group, whose items are read when it is expanded); ``count``: how many items it holds.
    ``conversation_id``: the conversation whose event made it.
    """

    kind: GroupKind
    key: int
    count: int
    conversation_id: str
    events: tuple[Event, ...] = field(default=(), compare=False)

    @property
    def start(self) -> int:
        """The id of its first item (0 for a cleared group: it holds all that came
        before it). Items shown after the group all have larger ids."""
        return self.events[0].id if self.events else 0

    @property
    def failed(self) -> bool:
        """A Retry's group whose attempt failed (it holds an error)."""
        return any(event.kind == Kind.ERROR for event in self.events)

    @property
    def label(self) -> str:
        """What the collapsed group says ("3 items rewound")."""
        n = self.count
        items = f"{n} item{'s' if n != 1 else ''}"
        if self.kind == GroupKind.CLEARED:
            return f"Context cleared · {n} earlier item{'s' if n != 1 else ''}"
        if self.kind == GroupKind.RETRIED:
            return f"{'Failed attempt' if self.failed else 'Earlier attempt'} · {items}"
        return f"{items} rewound"

    def holds(self, event_id: int) -> bool:
        return any(event.id == event_id for event in self.events)


#: One entry of the display list.
Entry = Event | Group


def flatten(entries: Iterable[Entry]) -> list[Event]:
    """The events of ``entries``, groups opened (a cleared group has none loaded)."""
    events: list[Event] = []
    for entry in entries:
        if isinstance(entry, Group):
            events.extend(entry.events)
        else:
            events.append(entry)
    return events


def collapse(transcript: list[Entry], start: int, kind: GroupKind, event: Event) -> None:
    """Turn ``transcript[start:]`` into one group made by ``event`` (nothing if empty).
    Groups inside it are opened: everything in it is out of the context alike."""
    removed = flatten(transcript[start:])
    del transcript[start:]
    if removed:
        transcript.append(
            Group(kind, event.id, len(removed), event.conversation_id, tuple(removed))
        )


def cleared(transcript: list[Entry], event: Event) -> None:
    """A clear: everything shown since the previous clear becomes its group (counted;
    the items themselves are read again when it is expanded)."""
    count = len(flatten(e for e in transcript if not _is_cleared(e)))
    transcript.clear()
    if count:
        transcript.append(Group(GroupKind.CLEARED, event.id, count, event.conversation_id))


def _is_cleared(entry: Entry) -> bool:
    return isinstance(entry, Group) and entry.kind == GroupKind.CLEARED


def find_event(transcript: Sequence[Entry], event_id: int) -> int | None:
    """The index of a (top-level) event in the display list."""
    for index in range(len(transcript) - 1, -1, -1):
        entry = transcript[index]
        if not isinstance(entry, Group) and entry.id == event_id:
            return index
    return None


def replace_event(transcript: list[Entry], event_id: int, updated: Event | None) -> bool:
    """Put ``updated`` where the event ``event_id`` is (in a group too); ``None``
    removes it. Returns whether it was found at the top level."""
    index = find_event(transcript, event_id)
    if index is not None:
        if updated is None:
            del transcript[index]
        else:
            transcript[index] = updated
        return True
    for index, entry in enumerate(transcript):
        if isinstance(entry, Group) and entry.holds(event_id):
            events = [
                updated if e.id == event_id else e
                for e in entry.events
                if updated is not None or e.id != event_id
            ]
            transcript[index] = Group(
                entry.kind,
                entry.key,
                len(events),
                entry.conversation_id,
                tuple(e for e in events if e is not None),
            )
            break
    return False


# -- the store: counts and items of cleared groups ---------------------------------------
def _ranges(store: Store, conv_id: str, upto: int) -> tuple[list[tuple[str, int]], int]:
    """The (conversation, upto) event ranges shown before a clear, back to the previous
    clear; and that previous clear's id (0 if none)."""
    ranges: list[tuple[str, int]] = []
    for current, bound, clear in history_ranges(store, conv_id, upto):
        ranges.append((current, bound if bound is not None else upto))
        if clear is not None:
            return ranges, clear
    return ranges, 0


def count_cleared(store: Store, group: Group) -> int:
    """How many items the cleared ``group`` holds, by counting (not reading) them."""
    ranges, previous = _ranges(store, group.conversation_id, group.key - 1)
    # (the previous clear is in the last range; every other range's ids are above it)
    return sum(store.count_shown(conv, after=previous, upto=upto) for conv, upto in ranges)


def cleared_items(store: Store, group: Group) -> list[Entry]:
    """The items of the cleared ``group``, oldest first: the earlier clear's group (if
    any) first, then every event shown before this clear, rewound ones included."""
    segments = load_segments(store, group.conversation_id, group.key - 1)
    entries: list[Entry] = []
    for segment in segments:
        for event in segment:
            if event.kind == Kind.CLEAR:
                earlier = Group(GroupKind.CLEARED, event.id, 0, event.conversation_id)
                count = count_cleared(store, earlier)
                if count:
                    entries.append(Group(earlier.kind, earlier.key, count, earlier.conversation_id))
            elif shown(event):
                entries.append(event)
    return entries


def cleared_group(store: Store, segments: Sequence[Sequence[Event]]) -> Group | None:
    """The group a replay that started at a clear shows first: the items before that
    clear, counted (the replay itself did not read them); ``None`` if there are none."""
    first = segments[0][0] if segments and segments[0] else None
    if first is None or first.kind != Kind.CLEAR:
        return None
    group = Group(GroupKind.CLEARED, first.id, 0, first.conversation_id)
    count = count_cleared(store, group)
    return Group(group.kind, group.key, count, group.conversation_id) if count else None

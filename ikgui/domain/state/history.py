"""A conversation's history in the store: the event ranges of its fork chain, walked
backwards from the conversation to the newest clear or the root ("walk backwards",
SPEC §4). One walk for replay and for the window's cleared groups."""

from __future__ import annotations

from collections.abc import Iterator

from ikgui.domain.errors import NotFoundError
from ikgui.domain.events import Conversation, Event
from ikgui.domain.ports import Store


def lineage(store: Store, conv_id: str) -> list[Conversation]:
    """``conv_id`` and its ancestors, oldest first (the one ancestor walk; a missing
    ancestor ends it)."""
    chain: list[Conversation] = []
    seen: set[str] = set()
    current: str | None = conv_id
    while current is not None and current not in seen:
        seen.add(current)
        conv = store.get_conversation(current)
        if conv is None:
            if not chain:
                raise NotFoundError(f"Conversation not found: {current}")
            break
        chain.append(conv)
        current = conv.parent
    chain.reverse()
    return chain


def history_ranges(
    store: Store, conv_id: str, upto: int | None = None
) -> Iterator[tuple[str, int | None, int | None]]:
    """``(conversation id, bound, newest clear at or below the bound)`` from ``conv_id``
    back through its ancestors; the walk ends at a range that has a clear, at the root,
    or at a missing or repeated conversation."""
    try:
        chain = lineage(store, conv_id)  # (the one ancestor walk)
    except NotFoundError:
        return
    bound = upto
    for conv in reversed(chain):
        clear = store.latest_clear(conv.id, bound)
        yield conv.id, bound, clear
        if clear is not None or conv.parent is None or conv.fork_event_id is None:
            return
        # A fork "from here" may point below the parent's own fork point.
        bound = conv.fork_event_id if bound is None else min(bound, conv.fork_event_id)


def load_segments(store: Store, conv_id: str, upto: int | None = None) -> list[list[Event]]:
    """The event ranges that make up ``conv_id``'s history (up to the event ``upto``),
    oldest ancestor first. A range's clear is included: it empties nothing yet but
    restores the settings in force."""
    segments = [
        store.events(current, after=clear - 1, upto=bound)
        if clear is not None
        else store.events(current, upto=bound)
        for current, bound, clear in history_ranges(store, conv_id, upto)
    ]
    segments.reverse()
    return segments

"""What another process wrote to the open conversation, taken in without a replay.

A reply streamed by another process (``ikgui run -c ID``, or a window on another
machine sharing a PostgreSQL database) is one assistant event whose row is created
when its send starts and then grows (``Store.update_event``, about once a second,
``data.streaming`` true until it finishes); its newest event id does not change while
it grows. So a window that saw "something changed" (its poll, or PostgreSQL's NOTIFY)
reads a small stamp of the conversation's newest events (``Store.tail_stamp``: ids and
lengths, one indexed query) and:

- re-reads each shown event whose stamp differs from what the state holds, patches it
  into the state in place and announces it (``Changed`` with ``elsewhere``): the
  view grows that item, or renders it whole once it finished;
- reads the few events newer than the newest one shown and folds them in, one by one,
  with the same fold the window's own appends use (``Changed``).

A writer that dies (a crash, a machine switched off) leaves its reply growing; its
conversation's send lock goes with it, so :func:`settle_abandoned` (called when nothing
changed for a while) marks such a reply interrupted, as the next start-up would — through
the one writer (``apply``), after what waits in its queue.

Nothing is replayed for that; :func:`take_in` answers ``False`` when it cannot take the
change in this way (changes of this window still wait to be saved, or many events
arrived at once) and the caller replays the conversation instead.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ikgui.domain.events import Event, Kind
from ikgui.domain.session.crashed import being_written, mark_interrupted
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.state.changes import Changes, StoreWrite

#: How many of the newest events the stamp covers (a reply, the tool calls after it).
TAIL = 4
#: More new events than this at once (an import, a long script): replay instead.
MANY = 50
#: One event's stamp: its id, the length of its content and of its data (JSON text).
Stamp = tuple[int, int, int]


def written_elsewhere(event: Event) -> bool:
    """A reply another process is still writing: its row says it streams and the
    process that writes it is not this one (``data.owner``: the writer's process id;
    a row without one cannot tell)."""
    if event.kind != Kind.ASSISTANT or not event.may_have("streaming"):
        return False
    data = event.data
    owner = data.get("owner")
    return data.get("streaming") is True and isinstance(owner, int) and owner != os.getpid()


def stamp_of(event: Event) -> Stamp:
    """The stamp the store would give ``event`` as the state holds it."""
    return (event.id, len(event.content), len(event.data_json() or ""))


def take_in(current: OpenConversation, shown_upto: int | None) -> bool:
    """Take in what another process wrote to the open conversation since the window
    showed the events up to ``shown_upto`` (see the module's text). ``False``: not
    taken in; replay it instead."""
    if not current.saved:
        return True
    if not current.replayed:  # its deferred replay reads it all, now: nothing is left
        current.state  # noqa: B018
        return True
    conv_id = current.conversation.id
    if current.writes.touches(conv_id):
        return False  # a replay would lack what waits: keep what is shown
    stamp = current.store.tail_stamp(conv_id, TAIL)
    if shown_upto is not None and (not stamp or stamp[0][0] < shown_upto):
        return False  # what is shown is not what is stored (saved late, say): replay
    newer = [row for row in stamp if shown_upto is None or row[0] > shown_upto]
    if len(newer) == TAIL and _too_many(current, conv_id, shown_upto):
        return False
    _update_changed(current, [row for row in stamp if row not in newer])
    if newer:
        events = tuple(current.store.events(conv_id, after=shown_upto))
        current.apply(Changes(conv_id, appended=events, elsewhere=True))
    current.refresh_conversation()
    return True


def _too_many(current: OpenConversation, conv_id: str, shown_upto: int | None) -> bool:
    if shown_upto is None:
        return True
    return current.store.count_shown(conv_id, shown_upto, 2**62) > MANY


def _update_changed(current: OpenConversation, rows: Sequence[Stamp]) -> None:
    """Re-read and patch in each shown event whose stamp differs from the state's."""
    held = {event.id: event for event in current.state.scrollback[-2 * TAIL :]}
    for row in reversed(rows):  # oldest first
        event_id = row[0]
        old = held.get(event_id)
        if old is None or event_id in current.live_text or stamp_of(old) == row:
            continue  # not shown, growing here, or unchanged
        event = current.store.get_event(event_id)
        if event is None:
            continue
        current.apply(Changes(event.conversation_id, updated=((old, event),), elsewhere=True))
        prompt = event.data.get("prompt") if event.may_have("prompt") else None
        if isinstance(prompt, str) and not event.data.get("streaming"):
            current.set_reply_prompt(event, prompt)  # as the writer's own state did


def settle_abandoned(current: OpenConversation) -> bool:
    """The reply shown as written elsewhere, if its writer is gone (no process holds
    its conversation's send lock), is stored and shown as interrupted; ``True`` if so."""
    if not current.saved or not current.state.scrollback:
        return False
    shown = current.state.scrollback[-1]
    if not written_elsewhere(shown) or being_written(current.store, shown.conversation_id):
        return False
    if current.writes:
        return False  # the one writer writes what waits first (then, on a later look)
    event = current.store.get_event(shown.id)  # (read after the lock: it may have ended)
    if event is None or not written_elsewhere(event):
        return False
    found = event
    write = StoreWrite(
        (event.conversation_id,),
        "a reply whose writer is gone: interrupted",
        lambda store: mark_interrupted(store, found),
        frozenset(),  # (told below, as another process's row)
        may_wait=False,
    )
    (marked,) = current.apply(Changes(event.conversation_id, writes=(write,)))
    current.apply(Changes(event.conversation_id, updated=((shown, marked),), elsewhere=True))
    return True

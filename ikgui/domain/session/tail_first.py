"""What the window shows of a conversation before it is replayed: a preview folded from
the end of its log.

Replaying a 10,000-event conversation reads and folds every event (~0.1 s), while the
window's first paint shows only its last dozen items. :func:`preview` folds just the
newest ``limit`` events of the log when that gives the transcript's last ``limit`` items
exactly as the full replay has them: when each of these events only adds an item (none
is a rewind or a clear, which cut the transcript, a reply that failed before any text,
which replay leaves out, or a kind this version does not know), and the conversation is
a root or has ``limit`` events of its own (a fork shows its parent's events before its
own).

A preview is a value to show, never the session's state: its context, marks, working
prompt and ``/model`` are not the conversation's. The session opens the conversation
with its replay deferred (``OpenConversation.open(conv_id, replay_later=True)``): the
full replay runs the first time anything reads the state — the window right after its
first paint, or a send, a command, the context dialog before that — and the session
announces it (``StateReplaced``), so no caller has to remember to finish anything.
:func:`ends_alike` tells the window whether the replay ends as the preview showed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ikgui.domain.events import CONVERSATION_KINDS, Conversation, Event, Kind
from ikgui.domain.ports import Store
from ikgui.domain.state.reading import failed_before_text, visible
from ikgui.domain.state.replay import ReplayState, replay
from ikgui.domain.state.transcript import Entry

#: Kinds whose fold only appends to the transcript (a list, not "all but rewind and
#: clear": a kind added later is not assumed to be one).
APPENDING = CONVERSATION_KINDS | {Kind.MARK, Kind.COMMAND, Kind.FORK, Kind.AGENT_KILLED, Kind.ERROR}


@dataclass(frozen=True)
class Preview:
    """The end of a conversation, to show while it is replayed in full."""

    conversation: Conversation
    #: The transcript's last items, as the full replay has them.
    transcript: tuple[Entry, ...]
    #: The scrollback's last events (what the window compares the full replay's with).
    scrollback: tuple[Event, ...]


def tail_state(store: Store, conv: Conversation, limit: int) -> ReplayState | None:
    """The state folded from ``conv``'s newest ``limit`` events alone, if its transcript
    is the full replay's last ``limit`` items (see the module's docstring); else ``None``."""
    events = store.tail_events(conv.id, limit)
    if conv.parent is not None and len(events) < limit:
        return None  # the parent's events come before these
    if not all(e.kind in APPENDING and not failed_before_text(e) for e in events):
        return None
    return replay([events])


def preview(store: Store, conv_id: str, limit: int) -> Preview | None:
    """The preview of ``conv_id`` from its newest ``limit`` events, if that is safe
    (see :func:`tail_state`); ``None``: it must be replayed in full to be shown."""
    conv = store.get_conversation(conv_id)
    if conv is None:
        return None
    state = tail_state(store, conv, limit)
    if state is None:
        return None
    return Preview(conv, tuple(state.transcript), tuple(state.scrollback))


def ends_alike(shown: Preview, full: ReplayState) -> bool:
    """Whether the full replay's transcript ends as the preview showed it (another
    process may have written meanwhile)."""
    before, after = visible(shown.scrollback), visible(full.scrollback)
    return len(after) >= len(before) and after[len(after) - len(before) :] == before

"""Opening a conversation from the end of its log first, and replaying it in full later.

Replaying a 10,000-event conversation reads and folds every event (~0.1 s), while the
window's first paint shows only its last dozen items. :func:`tail_state` folds just the
newest ``limit`` events of the log when that gives the transcript's last ``limit`` items
exactly as the full replay has them: when each of these events only adds an item (none
is a rewind or a clear, which cut the transcript, a reply that failed before any text,
which replay leaves out, or a kind this version does not know), and the conversation is
a root or has ``limit`` events of its own (a fork shows its parent's events before its
own).

The context, marks, working prompt and ``/model`` of such a state are not the
conversation's: :class:`TailFirst` opens the session on it for the first paint, and
nothing may be sent or changed until :meth:`TailFirst.finish` has put the full replay
in its place.
"""

from __future__ import annotations

from ikgui.domain.events import CONVERSATION_KINDS, Conversation, Kind
from ikgui.domain.ports import Store
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.state.reading import failed_before_text, visible
from ikgui.domain.state.replay import ReplayState, replay

#: Kinds whose fold only appends to the transcript (a list, not "all but rewind and
#: clear": a kind added later is not assumed to be one).
APPENDING = CONVERSATION_KINDS | {Kind.MARK, Kind.COMMAND, Kind.FORK, Kind.AGENT_KILLED, Kind.ERROR}


def tail_state(store: Store, conv: Conversation, limit: int) -> ReplayState | None:
    """The state folded from ``conv``'s newest ``limit`` events alone, if its transcript
    is the full replay's last ``limit`` items (see the module's docstring); else ``None``."""
    events = store.tail_events(conv.id, limit)
    if conv.parent is not None and len(events) < limit:
        return None  # the parent's events come before these
    if not all(e.kind in APPENDING and not failed_before_text(e) for e in events):
        return None
    return replay([events])


class TailFirst:
    """Opens a conversation on the state of its tail, then replays it in full. For a
    session that has just started (no prompt edit staged, no reply streaming)."""

    def __init__(self, current: OpenConversation, limit: int) -> None:
        self.current = current
        self.limit = limit
        #: The tail's state while the session is on it (``None`` once replayed).
        self._state: ReplayState | None = None

    @property
    def pending(self) -> bool:
        """Whether the session is on a tail's state still (nothing may be sent)."""
        return self._state is not None and self.current.state is self._state

    def open(self, conv_id: str) -> bool:
        """Switch to ``conv_id`` on its tail's state if that is safe (see
        :func:`tail_state`); ``False`` (nothing done) if not."""
        current = self.current
        conv = current.store.get_conversation(conv_id)
        if conv is None or current.writes.touches(conv_id):
            return False
        state = tail_state(current.store, conv, self.limit)
        if state is None:
            return False
        self._state = state
        current.show(conv, state)
        return True

    def finish(self) -> bool | None:
        """Replace the tail's state by the full replay (now, if not done yet). Returns
        whether the transcript ends as the tail showed it (``None``: nothing to do, the
        session moved on or it was done)."""
        if not self.pending:
            self._state = None
            return None
        tail, self._state = self._state, None
        assert tail is not None
        current = self.current
        state = current.replay_quietly()
        shown, full = visible(tail.scrollback), visible(state.scrollback)
        return len(full) >= len(shown) and full[len(full) - len(shown) :] == shown

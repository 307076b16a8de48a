"""Closed branches are read-only (issue 12, item 4).

A branch closed with ``/kill`` (status ``killed``) takes no new input: the one rule is
:func:`refuse_closed`, which the send path and every append of user input to the open
conversation obey, and which the command registry asks before running a command that
is not marked ``when_closed``. What a reply already under way appends (its reply, tool
calls, an error) and the branch's own lifecycle events are not input and pass.

Reopening is an event too: ``agent_reopened`` in the branch's parent (where its
``agent_killed`` is), so the log says when a branch was closed and when reopened, and
``ikgui conv reopen``, ``/reopen`` and the window's Reopen button do the same thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.errors import ClosedError, UserError
from ikgui.domain.events import STATUS_ACTIVE, STATUS_KILLED, Conversation, Kind
from ikgui.domain.facts import ConversationChanged, EventAppended
from ikgui.domain.ids import resolve_ref
from ikgui.domain.replay import fold

if TYPE_CHECKING:
    from ikgui.domain.current import OpenConversation

#: What may still be appended to a closed branch: a reply already under way, and the
#: branch's lifecycle (closing, reopening).
NOT_INPUT = frozenset(
    {
        Kind.ASSISTANT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.ERROR,
        Kind.AGENT_KILLED,
        Kind.AGENT_REOPENED,
    }
)


def is_closed(conv: Conversation) -> bool:
    return conv.status == STATUS_KILLED


def refuse_closed(conv: Conversation, kind: str | None = None) -> None:
    """Raise ``ClosedError`` if ``conv`` is closed and ``kind`` (default: any input) is
    input: the one rule of what a closed branch takes."""
    if is_closed(conv) and kind not in NOT_INPUT:
        raise ClosedError(conv.id)


def reopen(current: OpenConversation, ref: str | None) -> Conversation:
    """Reopen a closed branch (default: the one on screen): its status is ``active``
    again and an ``agent_reopened`` event in its parent records it, in one transaction."""
    store = current.store
    target_id = resolve_ref(store, ref) if ref else current.conversation.id
    target = store.get_conversation(target_id) if (ref or current.saved) else None
    if target is None or not is_closed(target):
        raise UserError(f"Conversation is not closed: {target_id}")
    home = target.parent or target.id
    data = {"target": target.id, "reopened_by": current.conversation.id}
    with store.transaction():
        store.update_conversation(target.id, status=STATUS_ACTIVE)
        event = store.append_event(home, Kind.AGENT_REOPENED, f"Reopened {target.id}", data)
    target.status = STATUS_ACTIVE
    if target.id == current.conversation.id:
        current.conversation.status = STATUS_ACTIVE
    if home == current.conversation.id:
        change = fold(current.state, event)
        current.announce(EventAppended(home, event, change))
    current.announce(ConversationChanged(target.id))
    return target

"""Closed branches are read-only (issue 12, item 4).

A branch closed with ``/kill`` (status ``killed``) takes no new input: the one rule is
:func:`refuse_closed`, which the send path and every append of user input to the open
conversation obey, and which the command registry asks before running a command that
is not marked ``when_closed``. What a reply already under way appends (its reply, tool
calls, an error) and the branch's own lifecycle events are not input and pass.

Reopening is an event too: ``agent_reopened`` in the branch's parent (where its
``agent_killed`` is), so the log says when a branch was closed and when reopened, and
``ikgui conv reopen``, ``/reopen`` and the window's Reopen button do the same thing.

A conversation in the Trash is read-only by the same rule (issue 20, item 4): what it
took would go for good with it when the Trash is emptied. Restoring it (``ikgui conv
restore``, the Trash view, the window's Restore) makes it take input again. The
session's one read-only answer (:mod:`ikgui.domain.session.read_only`) holds these two
beside the demo's and a read-only store's.

``agent_killed.killed_by`` says who closed the branch (``user``: the user's ``/kill``,
``ikgui conv kill`` or the window's Close branch) and ``from`` the conversation the
command was given in; events written before said only that conversation's id in
``killed_by``, which :func:`closed_by` reads as the user (nothing else closed branches).
The same holds for ``agent_reopened.reopened_by``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ikgui.domain.errors import ClosedError, TrashedError, UserError
from ikgui.domain.events import BY_USER, STATUS_ACTIVE, STATUS_KILLED, Conversation, Kind
from ikgui.domain.state.changes import Changes, NewEvent
from ikgui.domain.state.ids import resolve_ref

if TYPE_CHECKING:
    from ikgui.domain.session.open_conversation import OpenConversation

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


def is_trashed(conv: Conversation) -> bool:
    return conv.trashed_at is not None


def refuse_closed(conv: Conversation, kind: str | None = None) -> None:
    """Raise ``TrashedError`` if ``conv`` is in the Trash, ``ClosedError`` if it is
    closed, and ``kind`` (default: any input) is input: the one rule of what a read-only
    conversation takes. The Trash is said first: restoring is the first step back."""
    if kind in NOT_INPUT:
        return
    if is_trashed(conv):
        raise TrashedError(conv.id)
    if is_closed(conv):
        raise ClosedError(conv.id)


def closed_by(data: dict[str, Any]) -> str:
    """Who closed a branch, from its ``agent_killed`` event's data (or who reopened it,
    from ``agent_reopened``'s): an old event held a conversation id there, which was
    always the user's doing."""
    who = data.get("killed_by", data.get("reopened_by"))
    return who if who in _WHO else BY_USER


#: The values ``killed_by``/``reopened_by`` hold since issue 20.
_WHO = frozenset({BY_USER})


def reopen(current: OpenConversation, ref: str | None) -> Conversation:
    """Reopen a closed branch (default: the one on screen): its status is ``active``
    again and an ``agent_reopened`` event in its parent records it, in one transaction."""
    store = current.store
    target_id = resolve_ref(store, ref) if ref else current.conversation.id
    target = store.get_conversation(target_id) if (ref or current.saved) else None
    target = current.writes.fields(target) if target is not None else None
    if target is None or not is_closed(target):
        raise UserError(f"Conversation is not closed: {target_id}")
    home = target.parent or target.id
    data = {"target": target.id, "reopened_by": BY_USER, "from": current.conversation.id}
    reopened = ((target.id, {"status": STATUS_ACTIVE}),)
    content = f"Reopened {target.id}"
    write = NewEvent(Kind.AGENT_REOPENED, content, data, fields=reopened)
    opened = Changes(target.id, fields={"status": STATUS_ACTIVE})
    current.apply(Changes(home, writes=(write,), others=(opened,)))
    return dataclasses.replace(target, status=STATUS_ACTIVE)

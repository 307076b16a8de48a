"""Start-up's crash recovery (SPEC §11): replies a crashed process left growing
(``streaming: true``, see :mod:`ikgui.domain.session.reply`) are marked interrupted, and
tool calls it left without a result get one saying so (SPEC §12) — never run again.

Apart from the streaming machinery (asyncio, the providers' protocol) because every
start-up runs it: ``ikgui conv list`` opens the store and recovers, nothing more.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from ikgui.domain.errors import StorageError
from ikgui.domain.events import Event, Kind
from ikgui.domain.ports import Store

log = logging.getLogger(__name__)


def recover_unfinished(store: Store, alive: Callable[[int], bool]) -> int:
    """Mark replies left growing by a crash as interrupted; returns how many.

    A reply whose owning process (``data.owner``) still runs is left alone: another
    window or ``ikgui run`` may be streaming it right now. So is one whose conversation's
    send lock is held: its writer may run on another machine sharing the database, where
    a process id of this one means nothing (the lock goes when its holder dies).
    """
    count = 0
    for event in store.unfinished_replies():
        owner = event.data.get("owner")
        if isinstance(owner, int) and alive(owner):
            continue
        if being_written(store, event.conversation_id):
            continue
        try:
            mark_interrupted(store, event)
        except StorageError as exc:
            # Reading never waits on a write (a full disk, a role that cannot write):
            # the reply is shown as stopped all the same, and a later run marks it.
            log.info("could not mark an unfinished reply as stopped yet: %s", exc)
            break
        count += 1
    return count


def mark_interrupted(store: Store, event: Event) -> Event:
    """Store ``event`` (a reply left growing) as interrupted: its text as it stands."""
    data = {k: v for k, v in event.data.items() if k not in ("streaming", "owner")}
    data["interrupted"] = True
    store.update_event(event.id, event.content, data)
    return event.with_changes(event.content, data)


def being_written(store: Store, conv_id: str) -> bool:
    """Whether a process (on any machine) holds the conversation's send lock."""
    lock = store.send_lock(conv_id)
    try:
        if not lock.acquire():
            return True
    except StorageError:
        return True  # cannot tell (no lock file can be made): leave the reply as it is
    lock.release()
    return False


#: The result of a tool call that a process which stopped (a crash, a kill) left without
#: one: the next request needs a result for every call, and the call never runs again.
INTERRUPTED = "Interrupted: ikgui stopped before it finished"


def unanswered(events: Iterable[Event]) -> list[Event]:
    """The ``tool_call`` events of ``events`` with no ``tool_result`` among them."""
    events = list(events)
    answered = {str(e.data.get("tool_call_id")) for e in events if e.kind == Kind.TOOL_RESULT}
    return [e for e in events if e.kind == Kind.TOOL_CALL and str(e.data.get("id")) not in answered]


def interrupted_result(call: Event) -> dict[str, Any]:
    """The data of the result an unanswered ``call`` gets."""
    data: dict[str, Any] = {
        "tool_call_id": str(call.data.get("id") or ""),
        "name": str(call.data.get("name") or ""),
        "output": INTERRUPTED,
        "success": False,
        "interrupted": True,
    }
    if isinstance(call.data.get("server"), str):
        data["server"] = call.data["server"]
    return data

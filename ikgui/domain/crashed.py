"""Start-up's crash recovery (SPEC §11): replies a crashed process left growing
(``streaming: true``, see :mod:`ikgui.domain.reply`) are marked interrupted.

Apart from the streaming machinery (asyncio, the providers' protocol) because every
start-up runs it: ``ikgui conv list`` opens the store and recovers, nothing more.
"""

from __future__ import annotations

from collections.abc import Callable

from ikgui.domain.ports import Store


def recover_unfinished(store: Store, alive: Callable[[int], bool]) -> int:
    """Mark replies left growing by a crash as interrupted; returns how many.

    A reply whose owning process (``data.owner``) still runs is left alone: another
    window or ``ikgui run`` may be streaming it right now.
    """
    count = 0
    for event in store.unfinished_replies():
        owner = event.data.get("owner")
        if isinstance(owner, int) and alive(owner):
            continue
        data = {k: v for k, v in event.data.items() if k not in ("streaming", "owner")}
        data["interrupted"] = True
        store.update_event(event.id, event.content, data)
        count += 1
    return count

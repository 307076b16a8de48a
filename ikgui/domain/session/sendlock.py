"""One reply at a time per conversation, across processes (issue 8, SPEC §11).

A send holds the store's per-conversation lock from the user message's append until
its reply is finished, so two senders (two ``ikgui run -c``, or the window and the
command line) never interleave user A, user B, reply A, reply B. The second sender
polls without blocking the event loop for up to ``IKGUI_SEND_WAIT`` seconds (default
60), then refuses with one plain line.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

from ikgui.domain.errors import UserError
from ikgui.domain.ports import SendLock
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.state.facts import SendWaiting

DEFAULT_WAIT = 60.0
POLL_INTERVAL = 0.1


def default_wait() -> float:
    """``IKGUI_SEND_WAIT`` (seconds) when set to a number >= 0, else 60."""
    try:
        value = float(os.environ.get("IKGUI_SEND_WAIT", ""))
    except ValueError:
        return DEFAULT_WAIT
    return value if value >= 0 else DEFAULT_WAIT


class BusyError(UserError):
    """The send was refused before anything was recorded (the typed text goes back)."""


def busy_error(conv_id: str) -> BusyError:
    return BusyError(f"Another reply is being written in {conv_id}; try again when it ends")


async def hold(
    current: OpenConversation, conv_id: str, wait: float, busy: Callable[[], bool]
) -> SendLock:
    """Take the send lock of the current conversation ``conv_id`` for one send.

    While another process holds it, ``SendWaiting`` is announced and the lock polled
    (``wait`` seconds at most, then :class:`BusyError`; ``busy``: whether a reply
    streams here now). After a wait the state is replayed, so the reply written
    meanwhile comes first in the context.
    """
    lock = current.store.send_lock(conv_id)
    if lock.acquire():
        return lock
    current.announce(SendWaiting(conv_id))
    deadline = time.monotonic() + wait
    while True:
        await asyncio.sleep(min(POLL_INTERVAL, max(0.0, deadline - time.monotonic())))
        if lock.acquire():
            break
        if time.monotonic() >= deadline:
            raise busy_error(conv_id)
    if conv_id != current.conversation.id or busy():
        lock.release()
        raise BusyError("The conversation changed while waiting; nothing was sent")
    try:
        current.replay_again()  # the reply written meanwhile comes first in the context
    except BaseException:
        lock.release()
        raise
    return lock

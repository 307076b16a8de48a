"""Waiting for a condition instead of for a time (tests never sleep a fixed delay).

``wait_for`` is for synchronous tests (another process, a database file);
``wait_until`` for async ones: it lets the event loop (and Qt, on the qasync loop) run
meanwhile. Both fail with the condition's name when it never comes true.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(condition: Callable[[], T], timeout: float = 20.0, poll: float = 0.02) -> T:
    """Poll ``condition()`` until it returns something true, and return that."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {condition}")
        time.sleep(poll)


async def wait_until(condition: Callable[[], object], timeout: float = 10.0) -> None:
    """Let the loop run until ``condition()`` is true."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {condition}")
        await asyncio.sleep(0.01)


async def loop_passes(count: int = 20) -> None:
    """Let the event loop run ``count`` passes: what is already queued (posted events,
    0 ms timers such as a view's delayed layout and the fetch it starts) has run after
    them, however busy the machine. Counted in passes, never in seconds."""
    for _ in range(count):
        await asyncio.sleep(0)

"""Waiting for a condition instead of for a time (tests never sleep a fixed delay).

``wait_for`` is for synchronous tests (another process, a database file); async window
tests use ``tests.ui.conftest.wait_until``, which lets the event loop run meanwhile.
"""

from __future__ import annotations

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

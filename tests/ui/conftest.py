"""Window tests: the real widgets on the real qasync loop, offscreen.

``async def`` tests run on one session-wide qasync loop (pytest-asyncio's loop-factory
hook hands it over), so they can await the session directly. Never block in
``qtbot.waitSignal`` inside an async test; await ``wait_until`` instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator, Mapping
from typing import Any

import pytest

from ikgui.ui.loop import EventLoop, new_loop
from tests.support.waiting import wait_until

__all__ = ["wait_until"]

pytestmark = pytest.mark.asyncio(loop_scope="session")


_loops: list[EventLoop] = []


def _loop() -> EventLoop:
    loop = new_loop()
    _loops.append(loop)
    return loop


def pytest_asyncio_loop_factories(config: Any, item: Any) -> Mapping[str, Callable[[], Any]]:
    return {"qasync": _loop}


def _drained() -> None:
    """What a test (or a fixture) left on the loop's queue runs on the loop, before
    pytest-qt processes Qt's events outside it. An HTTP reply leaves httpcore's innermost
    generator to be finalised (httpx never closes it): its finaliser is a task that, run
    from that event processing instead, finds no loop (anyio) and fails with nobody to
    hear it (tests/support/error_watch.py then fails the test)."""
    loop = _loops[-1] if _loops else None
    if loop is not None and not loop.is_running() and not loop.is_closed():
        loop.run_until_complete(_turns(5))


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    try:
        return (yield)
    finally:
        _drained()


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    try:
        return (yield)
    finally:
        _drained()


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, object, object]:
    try:
        return (yield)
    finally:
        _drained()


async def _turns(count: int) -> None:
    for _ in range(count):  # a finalizer's task is created, then steps, on later turns
        await asyncio.sleep(0)

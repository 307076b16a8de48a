"""The qasync loop under pytest: Qt events and asyncio tasks run together."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QTimer

from ikgui.ui.loop import EventLoop
from tests.ui.conftest import wait_until


@pytest.mark.asyncio(loop_scope="session")
async def test_qt_timers_and_asyncio_share_the_loop() -> None:
    assert isinstance(asyncio.get_running_loop(), EventLoop)
    fired: list[str] = []
    qt_fired = asyncio.get_running_loop().create_future()
    QTimer.singleShot(10, lambda: (fired.append("qt"), qt_fired.set_result(None)))
    await asyncio.wait_for(qt_fired, 5)  # a Qt timer wakes an awaiting coroutine
    fired.append("asyncio")
    assert fired == ["qt", "asyncio"]


@pytest.mark.asyncio(loop_scope="session")
async def test_leaving_an_async_generator_early_is_quiet() -> None:
    finalized: list[bool] = []

    async def numbers():  # type: ignore[no-untyped-def]
        try:
            for i in range(10):
                yield i
                await asyncio.sleep(0)
        finally:
            await asyncio.sleep(0)
            finalized.append(True)

    async for n in numbers():
        if n == 2:
            break
    # The finalizer runs via the loop's hooks, with no warning (warnings are errors).
    await wait_until(lambda: finalized)

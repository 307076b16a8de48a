"""Window tests: the real widgets on the real qasync loop, offscreen.

``async def`` tests run on one session-wide qasync loop (pytest-asyncio's loop-factory
hook hands it over), so they can await the session directly. Never block in
``qtbot.waitSignal`` inside an async test; await ``wait_until`` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from ikgui.ui.loop import new_loop
from tests.support.waiting import wait_until

__all__ = ["wait_until"]

pytestmark = pytest.mark.asyncio(loop_scope="session")


def pytest_asyncio_loop_factories(config: Any, item: Any) -> Mapping[str, Callable[[], Any]]:
    return {"qasync": new_loop}

"""Window tests: the real widgets on the real qasync loop, offscreen.

``async def`` tests run on one session-wide qasync loop (pytest-asyncio's loop-factory
hook hands it over), so they can await the session directly. Never block in
``qtbot.waitSignal`` inside an async test; await ``wait_until`` instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication

from ikgui.ui.loop import new_loop
from tests.support.waiting import wait_until

__all__ = ["laid_out", "wait_until"]

pytestmark = pytest.mark.asyncio(loop_scope="session")

# pytest-qt's Python model tester prints a "modeltest: ..." line for every check it makes,
# some of them while pytest-qt closes a test's widgets, outside pytest's capture: they
# went into the progress line. As debug records they show in a failing test's report
# ("Captured log") and nowhere else.
_MODELTEST_LOG = logging.getLogger("pytestqt.modeltest")


@pytest.fixture(autouse=True, scope="session")
def _modeltest_logs() -> None:
    from pytestqt.modeltest import ModelTester  # (after pytest-qt has chosen its Qt)

    _MODELTEST_LOG.setLevel(logging.DEBUG)
    ModelTester._debug = lambda self, text: _MODELTEST_LOG.debug(text)  # type: ignore[method-assign]


def pytest_asyncio_loop_factories(config: Any, item: Any) -> Mapping[str, Callable[[], Any]]:
    return {"qasync": new_loop}


async def laid_out(turns: int = 5) -> None:
    """Qt's posted events (layout requests, resizes) handled, over a few turns of the
    loop. Never ``processEvents()`` inside an async test: it runs the loop's ready
    callbacks inside the test's own task, and qasync then refuses to step another task
    ("Cannot enter into task …", which leaves that task pending for ever)."""
    for _ in range(turns):
        QCoreApplication.sendPostedEvents()
        await asyncio.sleep(0)

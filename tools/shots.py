"""What the screenshot scripts share: waiting until the window has nothing left to do,
letting its queued work settle, and saving a grab. (Run from those scripts, which put
the repository on ``sys.path``.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.waiting import loop_passes, wait_until

#: How long a script waits for the window's tasks and streams (a first ``npx`` may
#: download a server).
PATIENCE = 90.0


async def quiet(window: Any, timeout: float = PATIENCE) -> None:
    """Every task of the window done and no reply streaming."""
    await wait_until(
        lambda: all(t.done() for t in window._tasks) and not window.session.streams,
        timeout=timeout,
    )


async def settled(window: Any) -> None:
    """The window's queued work (layouts, a scroll to the end) done, the status bar's
    passing messages cleared: what stays is what a user sees."""
    from PySide6.QtWidgets import QApplication

    await loop_passes(40)
    QApplication.processEvents()
    window.statusBar().clearMessage()
    await loop_passes(10)


def save(widget: Any, out: Path) -> None:
    widget.grab().save(str(out))
    print(f"wrote {out}")

"""What the sidebar repaints while a reply streams (issue 10 item 4: the send's start
stalled the window while the list repainted): the streaming badge coming and going
repaints that row alone, never the whole list."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from ikgui.storage import SqliteStore
from ikgui.ui.sidebar.conversation_model import ConversationListModel
from tests.ui.test_sidebar import HOUR, add, db_path, store
from tests.ui.test_sidebar_model import show

__all__ = ["db_path", "store"]


class Painted(QObject):
    """The rectangles of the paint events a widget gets."""

    def __init__(self) -> None:
        super().__init__()
        self.rects: list[QRect] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and isinstance(event, QPaintEvent):
            self.rects.append(event.rect())
        return False


def settle(painted: Painted, quiet_passes: int = 5) -> None:
    """Run the event loop until ``quiet_passes`` passes in a row paint nothing: every
    paint already asked for (posted updates, 0 ms timers such as the view's delayed
    layout) has then happened. Counted in passes, not milliseconds, so a busy machine
    only makes it slower."""
    quiet = 0
    for _ in range(200):
        before = len(painted.rects)
        QApplication.processEvents()
        quiet = quiet + 1 if len(painted.rects) == before else 0
        if quiet >= quiet_passes:
            return
    raise AssertionError(f"the list kept repainting: {painted.rects[-5:]}")


def test_the_streaming_badge_repaints_one_row(qtbot: QtBot, store: SqliteStore) -> None:
    for n in range(12):
        add(store, f"chat-{n:04d}", ago=n * HOUR, title=f"Conversation {n}", tags=["work"])
    model = ConversationListModel(store)
    view = show(qtbot, model)
    painted = Painted()
    view.viewport().installEventFilter(painted)
    view.executeDelayedItemsLayout()
    settle(painted)  # the first paints of the shown list are over
    row = model.index_of("chat-0003")
    where = view.visualRect(row)
    assert where.isValid() and where.height() < view.viewport().height() // 4

    for streaming in (True, False):
        painted.rects.clear()
        model.set_streaming("chat-0003", streaming)
        qtbot.waitUntil(lambda: bool(painted.rects))
        settle(painted)  # and any later repaint it caused
        # the row's band across the list (its branch area too), nothing above or below
        rows = {(r.top(), r.height()) for r in painted.rects}
        assert rows == {(where.top(), where.height())}, painted.rects

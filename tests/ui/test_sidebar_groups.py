# mypy: disable-error-code="no-untyped-call"
"""Rows that read well and pins (issue 12, items 1 and 2), on a real SQLite file: the row
says ``agent · N msgs · date`` (the id only in its tooltip and "Copy id"), top-level rows
fall under Pinned / Today / Yesterday / Previous 7 days / Previous 30 days / month
headers (rows of their own, above each group's first row), and pinned rows stay first — through the
real window's menus and Ctrl+P, and after a restart."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QPoint, Qt
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.domain.text.times import date_group
from ikgui.local.paths import resolve
from ikgui.storage import SqliteStore, open_store
from ikgui.ui.sidebar.conversation_model import (
    DetailRole,
    GroupRole,
    HeaderRole,
    IdRole,
    RelativeTimeRole,
)
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url
from tests.support.sidebar_rows import child, headers, top, top_rows
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, write_config

__all__ = ["closed_url"]


def _local_noon(days_ago: int) -> float:
    """Noon, local time, ``days_ago`` calendar days before today (never near midnight)."""
    day = datetime.now().date() - timedelta(days=days_ago)
    return datetime.combine(day, datetime.min.time()).replace(hour=12).astimezone().timestamp()


def _add(store: SqliteStore, cid: str, when: float, **fields: object) -> None:
    conv = Conversation(id=cid, title=cid.title(), created_at=when, updated_at=when, **fields)  # type: ignore[arg-type]
    store.insert_conversation(conv)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened_store = open_store(tmp_path / "ikgui.db")
    yield opened_store
    opened_store.close()


def _sidebar(qtbot: QtBot, store: SqliteStore) -> ConversationSidebar:
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    bar.resize(320, 700)
    bar.show()
    qtbot.waitExposed(bar)
    return bar


def _tops(bar: ConversationSidebar) -> list[QModelIndex]:
    return top_rows(bar.model)


def _header_above(bar: ConversationSidebar, row: QModelIndex) -> str | None:
    """The group header shown right above a top-level row (a header is a row of its own)."""
    above = bar.model.index(row.row() - 1, 0)
    return above.data(HeaderRole) if above.isValid() else None


def test_rows_are_grouped_under_date_headers(store: SqliteStore, qtbot: QtBot) -> None:
    now = time.time()
    _add(store, "chat-now1", now - 60, agent="coder")
    _add(store, "chat-now2", now - 120)
    _add(store, "chat-yest", _local_noon(1), agent="coder")
    _add(store, "chat-week", _local_noon(4))
    _add(store, "chat-mnth", _local_noon(12))
    _add(store, "chat-old1", _local_noon(70))
    _add(store, "chat-old2", _local_noon(71))
    store.insert_conversation(
        Conversation(id="chat-fork", parent="chat-yest", created_at=now - 30, updated_at=now - 30)
    )
    store.append_event("chat-yest", "user", "hello", created_at=_local_noon(1))
    bar = _sidebar(qtbot, store)
    rows = _tops(bar)
    assert [r.data(IdRole) for r in rows] == [
        "chat-now1",
        "chat-now2",
        "chat-yest",  # grouped by its own time, not its fork's
        "chat-week",
        "chat-mnth",
        "chat-old1",
        "chat-old2",
    ]
    old_month = date_group(_local_noon(70), now)
    assert [_header_above(bar, r) for r in rows] == [
        "Today",
        None,
        "Yesterday",
        "Previous 7 days",
        "Previous 30 days",
        old_month,
        None if date_group(_local_noon(71), now) == old_month else date_group(_local_noon(71), now),
    ]
    assert rows[1].data(GroupRole) == "Today"
    yesterday = rows[2]
    assert yesterday.data(RelativeTimeRole) == "Yesterday"
    assert yesterday.data(DetailRole) == "coder · 1 message · Yesterday"  # no id on the row
    assert [h for h in (_header_above(bar, r) for r in rows) if h] == headers(bar.model)
    # The header is a row of its own above the group's first row, as tall as a row.
    view = bar.view
    header = view.visualRect(bar.model.index(rows[0].row() - 1, 0))
    assert header.height() == view.visualRect(rows[0]).height()
    assert header.bottom() < view.visualRect(rows[0]).top()
    assert view.visualRect(rows[2]).height() == view.visualRect(rows[1]).height()
    fork = child(bar.model, yesterday, 0)
    assert fork.data(IdRole) == "chat-fork" and fork.data(HeaderRole) is None


def test_the_id_is_in_the_tooltip_and_copy_id(store: SqliteStore, qtbot: QtBot) -> None:
    _add(store, "chat-ab12", time.time() - 60, agent="coder")
    bar = _sidebar(qtbot, store)
    row = top(bar.model, 0)
    assert "chat-ab12" in row.data(Qt.ItemDataRole.ToolTipRole)
    assert "chat-ab12" not in row.data(DetailRole)
    menu = bar.menu_for(row)
    assert menu is not None
    copy = next(a for a in menu.actions() if a.objectName() == "copyIdAction")
    assert "chat-ab12" in copy.text()
    copy.trigger()
    assert QApplication.clipboard().text() == "chat-ab12"
    names = [a.objectName() for a in menu.actions()]
    assert "pinAction" not in names  # only once the window says pins can be stored


def test_a_pinned_row_is_listed_first_under_pinned(store: SqliteStore, qtbot: QtBot) -> None:
    now = time.time()
    for i in range(250):  # more than two pages: the pinned one is far down the listing
        _add(store, f"chat-{i:04d}", now - 60 * (i + 1))
    store.set_pinned(["chat-0240"], True)
    bar = _sidebar(qtbot, store)
    rows = _tops(bar)
    assert rows[0].data(IdRole) == "chat-0240"
    assert [_header_above(bar, r) for r in rows[:2]] == ["Pinned", date_group(now - 60, now)]
    bar.model.fetch_all()
    ids = [r.data(IdRole) for r in _tops(bar)]
    assert len(ids) == 250 and ids.count("chat-0240") == 1 and ids[0] == "chat-0240"
    # Unpinned (by another program): back in its place by date on the next reload.
    store.set_pinned(["chat-0240"], False)
    bar.reload()
    ids = [r.data(IdRole) for r in _tops(bar)]
    assert ids[0] == "chat-0000" and ids.index("chat-0240") == 240
    assert _header_above(bar, top(bar.model, 0)) != "Pinned"


# -- through the window ------------------------------------------------------------------


async def _window(home: Path) -> MainWindow:
    return await opened(home)


def _ids(bar: ConversationSidebar) -> list[str]:
    return [r.data(IdRole) for r in _tops(bar)]


def _trigger(menu: QMenu | None, name: str) -> None:
    assert menu is not None
    action = next((a for a in menu.actions() if a.objectName() == name), None)
    assert action is not None, f"no {name} in {[a.objectName() for a in menu.actions()]}"
    action.trigger()


async def test_pins_from_the_menu_and_ctrl_p_stay_first_after_a_restart(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, closed_url)
    now = time.time()
    with open_store(resolve(home).database) as seed:
        for i, cid in enumerate(["chat-aaaa", "chat-bbbb", "chat-cccc", "chat-dddd"]):
            _add(seed, cid, now - 10 * (i + 1))
    win = await _window(home)
    try:
        bar = win.sidebar
        assert bar.pinning
        _trigger(bar.menu_for(bar.model.reveal("chat-cccc")), "pinAction")
        assert _ids(bar)[:2] == ["chat-cccc", "chat-aaaa"]
        assert _header_above(bar, top(bar.model, 0)) == "Pinned"
        assert _header_above(bar, top(bar.model, 1)) == "Today"
        assert "Pinned 1 conversation" in win.statusBar().currentMessage()
        menu = bar.menu_for(bar.model.reveal("chat-cccc"))
        assert menu is not None and "unpinAction" in [a.objectName() for a in menu.actions()]

        # Ctrl+P on the selected row pins it (the keyboard way).
        rect = bar.view.visualRect(bar.model.reveal("chat-dddd"))
        qtbot.mouseClick(
            bar.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.bottomLeft() + QPoint(30, -12)
        )
        await wait_until(lambda: win.current_id == "chat-dddd")
        bar.view.setFocus()
        qtbot.keyClick(bar.view, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
        assert _ids(bar) == ["chat-cccc", "chat-dddd", "chat-aaaa", "chat-bbbb"]
        assert win.store.get_conversation("chat-dddd").pinned  # type: ignore[union-attr]
    finally:
        await closed(win)

    win = await _window(home)  # a restart: the pins come from the database
    try:
        bar = win.sidebar
        assert _ids(bar) == ["chat-cccc", "chat-dddd", "chat-aaaa", "chat-bbbb"]
        assert [_header_above(bar, top(bar.model, r)) for r in range(4)] == [
            "Pinned",
            None,
            "Today",
            None,
        ]
        # A selection of both pinned rows: "Unpin 2" unpins them in one go.
        bar.view.selectAll()
        bar.view.selectionModel().select(
            bar.model.reveal("chat-aaaa"), bar.view.selectionModel().SelectionFlag.Deselect
        )
        bar.view.selectionModel().select(
            bar.model.reveal("chat-bbbb"), bar.view.selectionModel().SelectionFlag.Deselect
        )
        _trigger(bar.menu_for(bar.model.reveal("chat-cccc")), "unpinAction")
        assert _ids(bar) == ["chat-aaaa", "chat-bbbb", "chat-cccc", "chat-dddd"]
        assert win.store.list_conversations(pinned=True) == []
    finally:
        await closed(win)

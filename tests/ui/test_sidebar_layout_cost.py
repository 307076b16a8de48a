"""What the sidebar's view costs when it lays out every loaded row again (a new row at
the top when a send starts, a page arriving): no Python call for a row that is not on
screen, however many rows are loaded (issue 26: the rows' count and indexes are C++, every
row as tall as the others); every row, headers included, keeps the one height of a
fresh layout; and the parents of a page's forks are read in one query, not one each."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget
from pytestqt.qtbot import QtBot

import ikgui
from ikgui.domain.events import Conversation
from ikgui.domain.text.times import day_bounds
from ikgui.storage import open_store
from ikgui.ui.sidebar.conversation_model import ConversationListModel
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.sidebar.rows import HeaderRole, IdRole
from tests.support.sidebar_rows import headers, top, top_ids
from tests.ui.test_send_start import ROOTS, fill, statements

IKGUI = str(Path(ikgui.__file__).parent)
#: One conversation's row read by id, and many read at once (the SQL's shapes, as
#: SQLite's trace shows them: values written in; see ikgui/storage/queries.py).
BY_ID = "WHERE conversation.id = "
BY_IDS = "WHERE conversation.id IN ("


@contextmanager
def python_calls() -> Iterator[Counter[str]]:
    """The ikgui functions Python enters meanwhile, by name (this thread)."""
    calls: Counter[str] = Counter()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(IKGUI):
            calls[frame.f_code.co_name] += 1

    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(None)


def loaded_sidebar(store: Any, qtbot: QtBot) -> ConversationSidebar:
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    bar.resize(300, 720)
    bar.show()
    qtbot.waitExposed(bar)
    bar.model.fetch_all()
    bar.model.pages_held = True  # (a layout then reads no page: only the layout counted)
    bar.view.doItemsLayout()
    return bar


def heights(bar: ConversationSidebar) -> list[tuple[str, int]]:
    """Every row: its id (or its header's text) and its height in the view."""
    model, view = bar.model, bar.view
    rows = []
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        name = index.data(IdRole) or f"header {index.data(HeaderRole)}"
        rows.append((name, view.visualRect(index).height()))
    return rows


def on_screen(bar: ConversationSidebar) -> int:
    """How many rows the view shows at once."""
    return bar.view.viewport().height() // bar.view.visualRect(bar.model.index(0, 0)).height() + 2


def test_a_relayout_asks_python_nothing_of_the_rows_off_screen(
    tmp_path: Path, qtbot: QtBot
) -> None:
    fill(tmp_path / "ikgui.db")
    store = open_store(tmp_path / "ikgui.db")
    try:
        bar = loaded_sidebar(store, qtbot)
        rows = bar.model.rowCount()
        assert rows >= ROOTS
        bar.view.viewport().repaint()
        with python_calls() as calls:
            bar.view.doItemsLayout()
        assert sum(calls.values()) <= 5, calls  # 700 rows: Qt's own work
        # a send: its row moves to the top, the view lays out again and repaints
        conv = bar.model.conversation(top(bar.model, 400))
        assert conv is not None
        moved = dataclasses.replace(conv, updated_at=time.time() + 60)
        with python_calls() as calls:
            bar.refresh_conversation(conv.id, moved)
            QApplication.processEvents()  # the view lays out and paints
        assert top(bar.model, 0).data(IdRole) == conv.id
        painted = calls["paint"]
        assert 0 < painted <= 2 * on_screen(bar), painted  # (not 700)
        assert calls["data"] <= 40 * painted, calls["data"]  # the rows painted
        assert calls["sizeHint"] <= 1 and calls["flags"] <= 4 * on_screen(bar), calls
    finally:
        bar.close()
        store.close()


def test_every_row_keeps_one_height_through_new_and_removed_rows(
    tmp_path: Path, qtbot: QtBot
) -> None:
    store = open_store(tmp_path / "ikgui.db")
    now = time.time()
    try:
        with store.transaction():
            for n in range(60):  # rows over a few days: several groups
                at = now - n * 3 * 3600
                conv = Conversation(f"conv-{n:03d}", title=f"T{n}", created_at=at, updated_at=at)
                store.insert_conversation(conv)
        bar = loaded_sidebar(store, qtbot)
        bar.model.pages_held = False
        for n, at in ((100, now), (101, now - 40 * 3600), (102, now - 7 * 24 * 3600)):
            conv = Conversation(f"conv-{n:03d}", title=f"T{n}", created_at=at, updated_at=at)
            store.insert_conversation(conv)
            bar.refresh_conversation(conv.id)
        for gone in ("conv-008", "conv-016", "conv-017"):  # (some starting a group)
            store.update_conversation(gone, trashed_at=now)
            bar.refresh_conversation(gone)
        bar.model.pages_held = True
        bar.view.doItemsLayout()
        mine = heights(bar)
        fresh = loaded_sidebar(store, qtbot)
        assert heights(fresh) == mine
        assert len({h for _, h in mine}) == 1  # headers as tall as conversations
        assert sum(name.startswith("header ") for name, _ in mine) >= 3
    finally:
        store.close()


def test_a_page_reads_the_parents_of_its_forks_in_one_query(tmp_path: Path, qtbot: QtBot) -> None:
    fill(tmp_path / "ikgui.db")  # each fork is newer than its parent: listed before it
    store = open_store(tmp_path / "ikgui.db")
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    try:
        before = len(top_ids(bar.model))
        with statements(store) as seen:
            bar.model.fetchMore(QModelIndex())
        assert len(top_ids(bar.model)) > before + 50
        assert not [s for s in seen if BY_ID in s], [s for s in seen if BY_ID in s][:2]
        assert len([s for s in seen if BY_IDS in s]) == 1
        forks = [bar.model.forks_of(f"conv-{n:04d}")[0] for n in (600, 596)]
        assert [f.id for f in forks] == ["fork-0600", "fork-0596"]
    finally:
        bar.model.pages_held = True  # (no page read after the store is closed)
        store.close()


def test_the_headers_follow_midnight(tmp_path: Path, qtbot: QtBot) -> None:
    store = open_store(tmp_path / "ikgui.db")
    start = day_bounds(time.time())[0] + 23.5 * 3600  # half an hour before midnight
    now = [start]
    try:
        with store.transaction():
            for n in range(30):
                at = start - n * 2 * 3600
                conv = Conversation(f"conv-{n:03d}", created_at=at, updated_at=at)
                store.insert_conversation(conv)
        model = ConversationListModel(store, clock=lambda: now[0])
        model.fetch_all()
        before = headers(model)
        assert before[:2] == ["Today", "Yesterday"]
        now[0] = start + 3600  # past midnight: today's rows are yesterday's
        model.refresh_times()  # (the sidebar's minute timer)
        after = headers(model)
        assert after[0] == "Yesterday" and "Today" not in after
        assert len(after) == len(before) - 1 or after[1] != "Yesterday"
        assert model.index(0, 0).data(HeaderRole) == "Yesterday"
        assert model._rows == model._layout()  # as a fresh list would show them
    finally:
        store.close()


def test_a_new_row_selected_in_a_hidden_list_lays_out_no_row_until_shown(
    tmp_path: Path, qtbot: QtBot
) -> None:
    fill(tmp_path / "ikgui.db")
    store = open_store(tmp_path / "ikgui.db")
    try:
        window = QWidget()  # the list in a window, as the main window holds it
        qtbot.addWidget(window)
        bar = ConversationSidebar(store)
        QHBoxLayout(window).addWidget(bar)
        window.resize(300, 720)
        window.show()
        qtbot.waitExposed(window)
        bar.model.fetch_all()
        bar.model.pages_held = True
        view = bar.view
        view.doItemsLayout()
        view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())
        bar.hide()  # a narrow window collapses the list
        at = time.time()
        store.insert_conversation(Conversation("conv-new", created_at=at, updated_at=at))
        with python_calls() as calls:  # what a send start does to the list
            bar.refresh_conversation("conv-new")
            bar.set_current("conv-new")
            qtbot.wait(20)  # (the view's own timers too)
        assert calls["sizeHint"] == 0, calls["sizeHint"]
        bar.show()
        qtbot.wait(20)
        current = view.currentIndex()
        assert bar.model.conversation(current).id == "conv-new"  # type: ignore[union-attr]
        assert current == top(bar.model, 0)
        assert view.viewport().rect().contains(view.visualRect(current))  # scrolled to it
        assert view.verticalScrollBar().value() == 0
    finally:
        bar.model.pages_held = True
        store.close()

"""What the sidebar's view costs when it lays out every loaded row again (a new row at
the top when a send starts, a page arriving): the Python work per row is a fixed few
calls (the model's index, parent and flags, and a size hint that is one header lookup),
however many rows; the heights stay those of a fresh layout; and the parents of a page's
forks are read in one query, not one each."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QHBoxLayout, QWidget
from pytestqt.qtbot import QtBot

import ikgui
from ikgui.domain.events import Conversation
from ikgui.domain.text.times import day_bounds
from ikgui.storage import open_store
from ikgui.ui.sidebar.conversation_model import ConversationListModel
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.sidebar.rows import HeaderRole
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


def heights(bar: ConversationSidebar) -> list[tuple[str, int, bool]]:
    """Every top-level row: its id, its height in the view and whether it has a header."""
    model, view = bar.model, bar.view
    rows = []
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        conv = model.conversation(index)
        assert conv is not None
        rows.append((conv.id, view.rowHeight(index), bool(model.data(index, HeaderRole))))
    return rows


def test_a_relayout_of_every_row_costs_a_few_python_calls_a_row(
    tmp_path: Path, qtbot: QtBot
) -> None:
    fill(tmp_path / "ikgui.db")
    store = open_store(tmp_path / "ikgui.db")
    try:
        bar = loaded_sidebar(store, qtbot)
        rows = bar.model.rowCount()
        assert rows >= ROOTS
        with python_calls() as calls:
            bar.view.doItemsLayout()
        assert calls["sizeHint"] == rows  # every row asked once...
        # ...and answered with one header lookup (no fonts, groups, days or roles)
        asked = {name: n for name, n in calls.items() if n >= rows // 2}
        assert set(asked) <= {"sizeHint", "header_at", "index", "parent", "flags"}, asked
        assert calls["header_at"] <= rows
        assert sum(calls.values()) <= 8 * rows, calls  # (a row with forks: hasChildren)
    finally:
        store.close()


def test_heights_after_new_and_removed_rows_are_those_of_a_fresh_layout(
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
        plain = {h for _, h, header in mine if not header}
        tall = {h for _, h, header in mine if header}
        assert len(plain) == 1 and len(tall) == 1 and min(tall) > min(plain), (plain, tall)
        assert sum(header for _, _, header in mine) >= 3
    finally:
        store.close()


def test_a_page_reads_the_parents_of_its_forks_in_one_query(tmp_path: Path, qtbot: QtBot) -> None:
    fill(tmp_path / "ikgui.db")  # each fork is newer than its parent: listed before it
    store = open_store(tmp_path / "ikgui.db")
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    try:
        before = bar.model.rowCount()
        with statements(store) as seen:
            bar.model.fetchMore(QModelIndex())
        assert bar.model.rowCount() > before + 50
        assert not [s for s in seen if BY_ID in s], [s for s in seen if BY_ID in s][:2]
        assert len([s for s in seen if BY_IDS in s]) == 1
        forks = [
            bar.model.conversation(bar.model.index(0, 0, bar.model.index_of(f"conv-{n:04d}")))
            for n in (600, 596)
        ]
        assert [f.id for f in forks if f is not None] == ["fork-0600", "fork-0596"]
    finally:
        bar.model.pages_held = True  # (no page read after the store is closed)
        store.close()


def test_the_short_header_lookup_agrees_with_the_header_role_across_midnight(
    tmp_path: Path, qtbot: QtBot
) -> None:
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

        def headers(ask: Any) -> list[str | None]:
            return [ask(model.index(row, 0)) for row in range(model.rowCount())]

        before = headers(model.header_at)
        assert before == headers(lambda index: model.data(index, HeaderRole))
        assert before[0] == "Today"
        now[0] = start + 3600  # past midnight: today's rows are yesterday's
        after = headers(model.header_at)
        assert after == headers(lambda index: model.data(index, HeaderRole))
        assert after[0] == "Yesterday" and after != before
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
        assert current.row() == 0
        assert view.viewport().rect().contains(view.visualRect(current))  # scrolled to it
        assert view.verticalScrollBar().value() == 0
    finally:
        bar.model.pages_held = True
        store.close()

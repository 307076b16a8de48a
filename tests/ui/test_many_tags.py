# mypy: disable-error-code="no-untyped-call"
"""A conversation with 100,000 tags in the window (issue 21 item 5): painting its row,
its size, the chip under the mouse, its tooltip, the tag editor, the "Filter by tag" box
and the selection's menu cost what they show — a few chips and ``+N`` — never a pass
per tag per tag. The work is counted (text measured, chip buttons made), never timed;
a layout that measures past a budget is stopped, so the old quadratic one fails fast
rather than hanging the suite."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QLabel, QMenu, QStyleOptionViewItem, QToolButton
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.local.paths import resolve
from ikgui.storage import SqliteStore, open_store
from ikgui.ui.sidebar import delegate as sidebar_delegate
from ikgui.ui.sidebar import manage_tags, tag_editor, tag_filter
from ikgui.ui.sidebar import menu as sidebar_menu
from ikgui.ui.sidebar.panel import ConversationSidebar
from tests.support.fixtures import closed_url
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, write_config

__all__ = ["closed_url"]

#: Text measurements one row may make per paint (the title, the detail line and a
#: few chips with their "+N"); the old layout made ~n²/2 for n tags.
PER_ROW = 40
#: Past this many measurements a layout is stopped (the test then fails on the count).
BUDGET = 5_000
SIZES = {"chat-ten": 10, "chat-thousand": 1_000, "chat-huge": 100_000}


class Budget(Exception):
    """Raised by a measurement past ``BUDGET``: stops a runaway layout."""


class CountingMetrics(QFontMetrics):
    """The delegate's font metrics, counting every text measured (all instances)."""

    calls = 0
    chars = 0
    seen: ClassVar[list[str]] = []

    def _count(self, text: str) -> None:
        CountingMetrics.calls += 1
        CountingMetrics.chars += len(text)
        if CountingMetrics.calls <= BUDGET:
            CountingMetrics.seen.append(text[:20])
        else:
            raise Budget(f"measured {CountingMetrics.calls} texts")

    def horizontalAdvance(self, text: Any, *args: Any) -> int:
        self._count(str(text))
        return super().horizontalAdvance(text, *args)

    def elidedText(self, text: str, *args: Any) -> str:
        self._count(text)
        return super().elidedText(text, *args)

    @classmethod
    def reset(cls) -> None:
        cls.calls = 0
        cls.chars = 0
        cls.seen = []


class CountingChip(QToolButton):
    """The tag editor's chip buttons, counted (stopped past ``BUDGET``)."""

    made = 0

    def __init__(self, *args: Any) -> None:
        CountingChip.made += 1
        if CountingChip.made > BUDGET:
            raise Budget(f"made {CountingChip.made} chips")
        super().__init__(*args)


class CountingTable(manage_tags.TagTable):
    """Manage tags' table model, counting what the table reads of it."""

    reads = 0

    def data(self, index: Any, role: int = 0) -> Any:
        CountingTable.reads += 1
        return super().data(index, role)


@pytest.fixture(autouse=True)
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sidebar_delegate, "QFontMetrics", CountingMetrics)
    monkeypatch.setattr(tag_editor, "QToolButton", CountingChip)
    monkeypatch.setattr(manage_tags, "TagTable", CountingTable)
    CountingTable.reads = 0
    CountingMetrics.reset()
    CountingChip.made = 0


def tag_names(count: int, prefix: str = "t") -> list[str]:
    return [f"{prefix}{i:06d}" for i in range(count)]


def seed(path: Path) -> None:
    """Three conversations with 10, 1,000 and 100,000 tags, the tags written in bulk
    by SQL (the store's ``insert_conversation`` writes a conversation's tags in one
    statement, past SQLite's parameter limit at this size)."""
    now = time.time()
    with open_store(path) as store:
        for i, cid in enumerate(SIZES):
            when = now - 60 * (i + 1)
            store.insert_conversation(
                Conversation(id=cid, title=f"Tagged {cid}", created_at=when, updated_at=when)
            )
    db = sqlite3.connect(path)
    with db:
        for cid, count in SIZES.items():
            db.executemany(
                "INSERT INTO tag (conversation_id, name) VALUES (?, ?)",
                ((cid, name) for name in tag_names(count, prefix=cid[5:7])),
            )
    db.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    path = tmp_path / "ikgui.db"
    seed(path)
    opened_store = open_store(path)
    yield opened_store
    opened_store.close()


@pytest.fixture
def sidebar(qtbot: QtBot, store: SqliteStore) -> ConversationSidebar:
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    bar.resize(340, 600)
    bar.show()
    qtbot.waitExposed(bar)
    bar.release_pages()
    return bar


def option_for(bar: ConversationSidebar, cid: str) -> tuple[QStyleOptionViewItem, Any]:
    index = bar.model.reveal(cid)
    assert index.isValid()
    option = QStyleOptionViewItem()
    option.initFrom(bar.view)
    option.font = bar.view.font()
    option.rect = bar.view.visualRect(index)
    option.widget = bar.view
    return option, index


@pytest.mark.parametrize("cid", list(SIZES))
def test_a_rows_paint_size_and_chips_cost_what_it_shows(
    sidebar: ConversationSidebar, cid: str
) -> None:
    delegate = sidebar.view.itemDelegate()
    assert isinstance(delegate, sidebar_delegate.ConversationDelegate)
    option, index = option_for(sidebar, cid)
    image = QImage(option.rect.right() + 1, option.rect.bottom() + 1, QImage.Format.Format_ARGB32)

    CountingMetrics.reset()
    painter = QPainter(image)
    delegate.paint(painter, option, index)
    painter.end()
    assert CountingMetrics.calls <= PER_ROW, CountingMetrics.seen

    CountingMetrics.reset()
    delegate.sizeHint(option, index)
    laid = delegate.layout_of(option, index)
    assert CountingMetrics.calls <= PER_ROW
    chips = laid.line.chips
    assert 1 <= len(chips) <= 12
    count = SIZES[cid]
    shown = [c.tag for c in chips if c.tag is not None]
    assert shown == tag_names(count, prefix=cid[5:7])[: len(shown)]  # the first tags
    assert chips[-1].label == f"+{count - len(shown)}"  # and the rest counted

    CountingMetrics.reset()
    centre = chips[0].rect.center().toPoint()
    assert delegate.tag_at(option, index, centre) == shown[0] if shown else True
    assert delegate.tag_at(option, index, QPoint(option.rect.left() + 1, centre.y())) is None
    assert CountingMetrics.calls <= 2 * PER_ROW

    tip = str(index.data(Qt.ItemDataRole.ToolTipRole))
    spoken = str(index.data(Qt.ItemDataRole.AccessibleTextRole))
    assert len(tip) < 2_000 and len(spoken) < 1_000
    if count > 12:
        assert f"and {count - 12:,} more" in spoken


def test_the_filter_box_and_the_selection_menu_list_a_bounded_number_of_tags(
    sidebar: ConversationSidebar, store: SqliteStore
) -> None:
    box = sidebar.tag_filter
    total = sum(SIZES.values())
    assert box.count() == 1 + tag_filter.BOX_TAGS + 1  # the prompt, the tags, the rest
    assert box.itemText(box.count() - 1) == tag_filter.more_text(total - tag_filter.BOX_TAGS)
    assert not box.model().flags(box.model().index(box.count() - 1, 0)) & (
        Qt.ItemFlag.ItemIsEnabled
    )
    first = box.itemData(1)
    box.setCurrentIndex(1)  # a tag listed still filters
    assert sidebar.tag_filters.chosen == (first,)

    convs = [store.get_conversation(cid) for cid in SIZES]
    menu = sidebar_menu.selection_menu(sidebar, [c for c in convs if c is not None])
    untag = menu.findChild(QMenu, "removeTagMenu")
    assert untag is not None
    assert len(untag.actions()) == sidebar_menu.MENU_TAGS + 1


async def test_the_window_shows_a_conversation_with_100000_tags(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, closed_url)
    seed(resolve(home).database)
    win = await opened(home)
    try:
        bar = win.sidebar
        index = bar.model.reveal("chat-huge")
        assert index.isValid()
        CountingMetrics.reset()
        bar.view.viewport().repaint()  # paints every row in sight, now
        assert CountingMetrics.calls <= PER_ROW * len(SIZES) + 100
        assert any(s.startswith("+99") for s in CountingMetrics.seen)  # its "+N" chip

        bar.edit_tags("chat-huge")
        dialog = bar._tag_dialog
        assert dialog is not None
        await wait_until(dialog.isVisible)
        assert CountingChip.made <= tag_editor.CHIPS_SHOWN
        assert len(dialog.chip_tags) == 100_000
        more = dialog.chip_box.findChild(QLabel, "tagChipsMore")
        assert more is not None and more.text() == f"and {100_000 - tag_editor.CHIPS_SHOWN:,} more"
        first = dialog.shown_chips()[0]
        CountingChip.made = 0
        dialog.remove_tag(first)  # the next tag comes into sight
        assert CountingChip.made <= tag_editor.CHIPS_SHOWN
        assert len(dialog.chip_tags) == 99_999 and first not in dialog.shown_chips()
        last_shown = dialog.shown_chips()[-1]
        qtbot.keyClick(dialog.line, Qt.Key.Key_Backspace)  # the last chip in sight goes
        assert len(dialog.chip_tags) == 99_998 and last_shown not in dialog.chip_tags
        assert dialog.chip_tags[-1] == tag_names(100_000, prefix="hu")[-1]
        dialog.reject()
    finally:
        await closed(win)


def test_manage_tags_lists_100000_tags_reading_only_what_it_shows(
    sidebar: ConversationSidebar,
) -> None:
    dialog = sidebar.open_manage_tags()
    assert dialog.isVisible()
    dialog.table.viewport().repaint()
    total = sum(SIZES.values())
    assert dialog.table.model().rowCount() == total
    assert CountingTable.reads < 20_000  # the rows in sight and a sample for the widths
    last = tag_names(SIZES["chat-huge"], prefix="hu")[-1]
    dialog.select(last)
    assert dialog.selected_tag() == last and dialog.name_edit.text() == last
    dialog.reject()


def test_a_row_with_huge_tags_measures_a_bounded_text(
    sidebar: ConversationSidebar, store: SqliteStore, qtbot: QtBot
) -> None:
    """Tags of 100,000 characters each (an import, another program): the chips show
    their start, the tooltip too, and a paint measures a few hundred characters."""
    db = sqlite3.connect(store.path)
    with db:
        db.executemany(
            "INSERT INTO tag (conversation_id, name) VALUES ('chat-ten', ?)",
            [(letter * 100_000,) for letter in "abc"],
        )
    db.close()
    sidebar.reload()
    option, index = option_for(sidebar, "chat-ten")
    delegate = sidebar.view.itemDelegate()
    assert isinstance(delegate, sidebar_delegate.ConversationDelegate)
    CountingMetrics.reset()
    laid = delegate.layout_of(option, index)
    assert CountingMetrics.chars < 2_000
    assert any(s.startswith("aaaa") for s in CountingMetrics.seen)  # the long ones first
    assert laid.line.chips[-1].label == f"+{13 - len(laid.line.chips) + 1}"
    assert len(str(index.data(Qt.ItemDataRole.ToolTipRole))) < 2_000

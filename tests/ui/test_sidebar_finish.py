# mypy: disable-error-code="no-untyped-call"
"""The sidebar finished for a new user (issue 20, items 10, 16, 17 and 19) on a real
SQLite store: menus show keys beside titles, never ``\\x09``; search results start at the
top with their count and say what matched, and clearing returns to where the list was;
the list shows a focus ring and End reaches the last conversation; a row's date stays
beside its tag chips and a pinned row shows a pin."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QImage, QKeySequence, QPalette
from PySide6.QtWidgets import QAbstractItemView, QMenu, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.storage import SqliteStore, open_store
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.sidebar.rows import GapRole, IdRole, RelativeTimeRole, SnippetRole
from tests.support.sidebar_rows import top
from tests.ui.styled import app_styled, gone


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = open_store(tmp_path / "ikgui.db")
    yield opened
    opened.close()


def add(store: SqliteStore, cid: str, ago: float, *tags: str, **fields: object) -> None:
    now = time.time()
    conv = Conversation(
        id=cid,
        title=str(fields.pop("title", f"Title of {cid}")),
        tags=tags,
        created_at=now - ago,
        updated_at=now - ago,
        **fields,  # type: ignore[arg-type]
    )
    store.insert_conversation(conv)


def shown(qtbot: QtBot, store: SqliteStore, width: int = 340) -> ConversationSidebar:
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    bar.resize(width, 600)
    bar.show()
    qtbot.waitExposed(bar)
    return bar


def _entries(menu: QMenu) -> dict[str, tuple[str, str]]:
    return {
        a.objectName(): (a.text(), a.shortcut().toString())
        for a in menu.actions()
        if a.objectName()
    }


def test_menus_show_keys_beside_titles_never_an_escaped_tab(
    qtbot: QtBot, store: SqliteStore
) -> None:
    for i, cid in enumerate(("chat-aaaa", "chat-bbbb", "chat-cccc")):
        add(store, cid, 10 * (i + 1), title=f"tab\there {cid}")
    bar = shown(qtbot, store)
    bar.pinning = True
    one = bar.menu_for(bar.model.reveal("chat-aaaa"))
    assert one is not None
    entries = _entries(one)
    assert entries["renameAction"] == ("Rename", "F2")
    assert entries["pinAction"] == ("Pin", "Ctrl+P")
    assert entries["trashAction"] == ("Move to Trash", QKeySequence("Del").toString())
    for cid in ("chat-aaaa", "chat-bbbb", "chat-cccc"):
        bar.view.selectionModel().select(
            bar.model.reveal(cid), QItemSelectionModel.SelectionFlag.Select
        )
    several = bar.menu_for(bar.model.reveal("chat-bbbb"))
    assert several is not None and several.objectName() == "selectionMenu"
    entries = _entries(several)
    assert entries["pinAction"] == ("Pin 3", "Ctrl+P")
    assert entries["trashAction"] == ("Move 3 to Trash", QKeySequence("Del").toString())
    for menu in (one, several):
        for action in menu.actions():
            assert "\\x09" not in action.text() and "\t" not in action.text()


def _option(bar: ConversationSidebar, index: QModelIndex) -> QStyleOptionViewItem:
    option = QStyleOptionViewItem()
    bar.view.initViewItemOption(option)
    option.rect = bar.view.visualRect(index)
    return option


def _inked(image: QImage, rect: QRect, ground: QColor) -> int:
    """How many pixels of ``rect`` differ clearly from the row's ``ground``."""
    return sum(
        1
        for y in range(rect.top(), rect.bottom() + 1)
        for x in range(rect.left(), rect.right() + 1)
        if max(
            abs(image.pixelColor(x, y).red() - ground.red()),
            abs(image.pixelColor(x, y).green() - ground.green()),
            abs(image.pixelColor(x, y).blue() - ground.blue()),
        )
        > 60
    )


def test_a_rows_date_stays_beside_its_chips_and_a_pinned_row_shows_a_pin(
    qtbot: QtBot, store: SqliteStore
) -> None:
    """Issue 20, item 19: many tags on a narrow row leave the date whole (chips give way,
    then the agent); a pinned row has a pin glyph at the right of its title."""
    tags = ("research", "writing", "career", "ideas", "longer-tag-name")
    add(store, "chat-tags", 10, *tags, agent="a-rather-long-agent-name")
    add(store, "chat-pins", 20, agent="writer")
    add(store, "chat-none", 30, agent="writer")
    store.set_pinned(["chat-pins"], True)
    bar = shown(qtbot, store, width=250)
    bar.view.clearSelection()
    bar.view.setCurrentIndex(QModelIndex())
    delegate = bar.delegate
    least = bar.minimumSizeHint().width()  # (more when an earlier test styled the app)
    for width in sorted({max(w, least) for w in (250, 320, 420)}):
        bar.resize(width, 600)
        qtbot.waitUntil(lambda w=width: bar.width() == w)
        index = bar.model.reveal("chat-tags")
        option = _option(bar, index)
        laid = delegate.layout_of(option, index).line
        date = str(index.data(RelativeTimeRole))
        assert laid.text.endswith(date) and not laid.date.isEmpty()
        assert option.rect.contains(laid.date)
        assert laid.chips, "some chips still fit"
        assert laid.date.right() < laid.chips[0].rect.left()
        image = bar.view.viewport().grab().toImage()
        ground = bar.view.palette().color(QPalette.ColorRole.Base)
        assert _inked(image, laid.date, ground) > 8  # the date is painted there

    bar.resize(max(320, least), 600)
    qtbot.waitUntil(lambda: bar.width() == max(320, least))
    pinned, plain = bar.model.reveal("chat-pins"), bar.model.reveal("chat-none")
    pinned_option, plain_option = _option(bar, pinned), _option(bar, plain)
    pin = delegate.layout_of(pinned_option, pinned).pin
    assert pin is not None and delegate.layout_of(plain_option, plain).pin is None
    pinned_rect, plain_rect = QRect(pinned_option.rect), QRect(plain_option.rect)
    assert pinned_rect.contains(pin)
    image = bar.view.viewport().grab().toImage()
    ground = bar.view.palette().color(QPalette.ColorRole.Base)
    # the same place on a row with the same title, not pinned (headers differ: bottoms)
    same_place = pin.translated(0, plain_rect.bottom() - pinned_rect.bottom())
    assert _inked(image, pin, ground) > 10
    assert _inked(image, same_place, ground) == 0


def _luminance(color: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(color.redF())
        + 0.7152 * channel(color.greenF())
        + 0.0722 * channel(color.blueF())
    )


def _contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_list_shows_a_focus_ring_in_both_themes(
    qtbot: QtBot, store: SqliteStore, theme: str
) -> None:
    """Issue 20, item 17: with the keyboard in the list, its frame turns to the accent,
    at least 3:1 against the sidebar's background (WCAG's non-text contrast)."""
    add(store, "chat-aaaa", 10)
    with app_styled(theme):
        bar = ConversationSidebar(store)  # deleted here, before the style is taken off
        bar.resize(340, 600)
        bar.show()
        try:
            qtbot.waitExposed(bar)
            bar.activateWindow()
            qtbot.waitUntil(bar.isActiveWindow)
            bar.search_box.setFocus()
            qtbot.waitUntil(bar.search_box.hasFocus)

            def edge() -> QColor:
                image = bar.view.grab().toImage()
                return image.pixelColor(0, image.height() // 2)

            idle = edge()
            bar.view.setFocus()
            qtbot.waitUntil(bar.view.hasFocus)
            ring = edge()
            ground = bar.palette().color(QPalette.ColorRole.Window)
            assert _contrast(ring, ground) >= 3.0, (ring.name(), ground.name())
            assert _contrast(ring, idle) >= 1.5, (ring.name(), idle.name())
        finally:
            bar.close()
            gone(bar)


def test_end_reaches_the_last_conversation_in_one_page_and_home_the_first(
    qtbot: QtBot, store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26, item 4: End goes to the last conversation reading one page from the
    oldest end (not everything between); a gap row stands for the rest, and scrolling up
    to it fills it a page at a time, the rows on screen kept in place, until the list
    is whole. Home goes back to the first."""
    for i in range(350):
        add(store, f"chat-{i:04d}", 10 + i)
    bar = shown(qtbot, store)
    view, model = bar.view, bar.model
    loaded = len(model.conversations())
    assert loaded < 350
    reads: list[object] = []
    listing = store.list_conversations

    def counted(*args: object, **kwargs: object) -> list[Conversation]:
        reads.append(args[0] if args else kwargs.get("limit"))
        return listing(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "list_conversations", counted)
    view.setFocus()
    view.setCurrentIndex(top(model, 0))
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.currentIndex().data(IdRole) == "chat-0349"
    assert len(reads) == 1 and isinstance(reads[0], int) and reads[0] < 350 - loaded
    assert model.gap and len(model.conversations()) == loaded + reads[0]
    rect = view.visualRect(view.currentIndex())
    assert view.viewport().rect().contains(rect.center())  # and shown

    while model.gap:  # the user scrolls up to the gap: it fills from below
        gap = next(
            i for i in (model.index(r, 0) for r in range(model.rowCount())) if i.data(GapRole)
        )
        after = model.index(gap.row() + 1, 0)  # (or its group's header)
        below = QPersistentModelIndex(
            after if after.data(IdRole) else model.index(gap.row() + 2, 0)
        )
        view.scrollTo(gap, QAbstractItemView.ScrollHint.PositionAtTop)
        seen = below.data(IdRole), view.visualRect(below).top()
        count = len(model.conversations())
        qtbot.waitUntil(lambda c=count: len(model.conversations()) > c)  # type: ignore[misc]
        assert (below.data(IdRole), view.visualRect(below).top()) == seen  # kept in place
    assert [c.id for c in model.conversations()] == [f"chat-{i:04d}" for i in range(350)]

    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert view.currentIndex().data(IdRole) == "chat-0000"
    assert [c.id for c in bar.selected_conversations()] == ["chat-0000"]


def test_search_results_start_at_the_top_with_their_count_and_clearing_returns(
    qtbot: QtBot, store: SqliteStore
) -> None:
    """Issue 20, item 16: results open at the top (not at the list's scroll, nor at the
    open conversation's hit), show how many they are and whether the title or a message
    matched; clearing the search returns the list to its scroll and selection."""
    now = time.time()
    for i in range(40):
        add(store, f"chat-{i:04d}", 100 + i)
        store.append_event(
            f"chat-{i:04d}", "user", f"notes {i} about zymurgy", created_at=now - 100 - i
        )
    add(store, "chat-titl", 50, title="Zymurgy for beginners")
    bar = shown(qtbot, store)
    view = bar.view
    bar.model.fetch_all()
    middle = bar.model.index_of("chat-0025")
    view.scrollTo(middle)
    rect = view.visualRect(middle)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert [c.id for c in bar.selected_conversations()] == ["chat-0025"]
    scroll = view.verticalScrollBar().value()
    assert scroll > 0

    qtbot.keyClicks(bar.search_box, "zymurgy")
    qtbot.waitUntil(lambda: bar.searching)
    assert bar.search_model.rowCount() == 41
    assert view.verticalScrollBar().value() == 0  # the best hits, first
    assert view.verticalScrollBar().maximum() > 0
    assert bar.search_count.isVisible() and bar.search_count.text() == "41 results"
    matched = {
        bar.search_model.index(r, 0).data(IdRole): bar.search_model.index(r, 0).data(SnippetRole)
        for r in range(41)
    }
    assert matched["chat-titl"] == "Title matches"
    assert matched["chat-0007"].startswith("Message: ") and "zymurgy" in matched["chat-0007"]
    assert [c.id for c in bar.selected_conversations()] == ["chat-0025"]  # marked, not sought

    qtbot.keyClicks(bar.search_box, "-nothing-like-it")
    qtbot.waitUntil(lambda: bar.search_model.rowCount() == 0)
    assert not bar.search_count.isVisible()

    qtbot.keyClick(bar.search_box, Qt.Key.Key_Escape)  # clears the search
    assert not bar.searching and not bar.search_count.isVisible()
    assert [c.id for c in bar.selected_conversations()] == ["chat-0025"]
    assert view.verticalScrollBar().value() == scroll

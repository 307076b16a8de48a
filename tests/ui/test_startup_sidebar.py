"""The sidebar reads one screenful of conversations before the window's first paint (its
layout asks for more pages than it shows: those wait for the paint), and reads more
after it when the view asks (scrolled to the end, or the screenful does not fill it)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex
from pytestqt.qtbot import QtBot

from ikgui.app.root import build_window
from ikgui.domain.events import Conversation
from ikgui.storage import open_store
from ikgui.ui.sidebar.conversation_model import PAGE_SIZE
from ikgui.ui.window.main_window import FIRST_ROWS, MainWindow
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, quiet

COUNT = FIRST_ROWS + 2 * PAGE_SIZE + 5


def make_home(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        '[providers.ollama]\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n',
        encoding="utf-8",
    )
    with open_store(home / "ikgui.db") as store:
        for number in range(COUNT):
            at = 1000.0 + number
            conv = Conversation(id=f"chat-{number:04d}", created_at=at, updated_at=at)
            store.insert_conversation(conv)


def rows(win: MainWindow) -> int:
    return len(win.sidebar.model.conversations())


async def test_the_first_paint_reads_one_screenful_and_the_view_may_ask_for_more_after(
    tmp_path: Path, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home")
    win = build_window(tmp_path / "home", check_timeout=0.3)
    model, root = win.sidebar.model, QModelIndex()
    try:
        win.show()
        win.sidebar.view.doItemsLayout()  # as the first paint lays it out
        assert rows(win) == FIRST_ROWS and not model.canFetchMore(root)
        await wait_until(lambda: win.first_paint.done)
        await quiet(win)
        assert model.canFetchMore(root)  # (the view asks when scrolled to the end)
        assert rows(win) == FIRST_ROWS  # a screenful fills the list: nothing more yet
        assert model.reveal(f"chat-{0:04d}").isValid()  # the oldest: read on demand
        win.sidebar.view.doItemsLayout()  # (done with the store before it closes)
    finally:
        await closed(win)


async def test_a_list_taller_than_the_first_screenful_is_filled_after_the_paint(
    tmp_path: Path, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home")
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        win.resize(1200, 4000)  # taller than FIRST_ROWS rows
        win.show()
        await wait_until(lambda: win.first_paint.done)
        await wait_until(lambda: win.sidebar.view.verticalScrollBar().maximum() > 0)
        assert rows(win) > FIRST_ROWS
        win.sidebar.view.doItemsLayout()  # (done with the store before it closes)
        await quiet(win)
    finally:
        await closed(win)

"""What a send start costs the event loop in the real window on a store with many
conversations (the SQL statements its thread runs, counted by SQLite itself): the
sidebar shows and selects the new row without reading a page of the listing or one
query per loaded row, however many rows are loaded; a page brings its rows' forks in
one query; and the rows shown afterwards are exactly those of a fresh sidebar."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QModelIndex
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.domain.ports import Store
from ikgui.storage import open_store
from ikgui.ui.sidebar.conversation_model import ConversationListModel
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.sidebar.rows import ExpandedRole, IdRole
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.sidebar_rows import child_ids, top, top_ids, top_rows
from tests.support.waiting import loop_passes
from tests.support.wire_server import WireServer
from tests.ui.test_window import closed, opened, quiet, reply, write_config

__all__ = ["wire_server", "wire_server_session"]

#: Conversations in the store (several pages of the sidebar); every FORK_EVERY-th has a fork.
ROOTS = 700
FORK_EVERY = 4
#: What identifies the listing's page query and a children query in the SQL.
LISTING = 'ORDER BY "t1"."updated_at" DESC'
CHILDREN = "WHERE conversation.parent_id = "
CHILDREN_OF = "WHERE conversation.parent_id IN ("


def fill(path: Path) -> Path:
    store = open_store(path)
    try:
        with store.transaction():
            for n in range(ROOTS):
                at = 1_000_000.0 + n * 60
                root = Conversation(
                    f"conv-{n:04d}", title=f"Talk {n}", created_at=at, updated_at=at
                )
                store.insert_conversation(root)
                if n % FORK_EVERY == 0:
                    fork = Conversation(
                        f"fork-{n:04d}", parent=root.id, created_at=at + 1, updated_at=at + 1
                    )
                    store.insert_conversation(fork)
    finally:
        store.close()
    return path


async def filled_window(tmp_path: Path, wire_server: WireServer) -> MainWindow:
    """The real window over a filled store, every reply "Fine, thanks."."""
    wire_server.route("/v1/chat/completions", reply("Fine", ", thanks."))
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    fill(home / "ikgui.db")
    return await opened(home)


def shown_sidebar(store: Store, qtbot: QtBot) -> ConversationSidebar:
    """A sidebar alone over ``store``, shown one column tall."""
    bar = ConversationSidebar(store)
    qtbot.addWidget(bar)
    bar.resize(300, 720)
    bar.show()
    qtbot.waitExposed(bar)
    return bar


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    """The SQL statements this thread runs on ``store`` meanwhile (SQLite's trace)."""
    seen: list[str] = []
    connection = store.database.connection()  # type: ignore[attr-defined]
    connection.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        connection.set_trace_callback(None)


def shown(model: ConversationListModel) -> list[tuple[str, list[str]]]:
    """Every loaded top-level row, with the ids of the forks under it."""
    return [(i.data(IdRole), child_ids(model, i)) for i in top_rows(model)]


async def send(window: MainWindow, text: str) -> list[str]:
    """Start a new conversation with ``text``; the statements until the reply is done."""
    await window.run_line("/new")
    await quiet(window)
    with statements(window.session.store) as seen:
        await window.run_line(text)
        await quiet(window)
        await loop_passes()  # the view's own timers (layout, fetch) run too
    return [s for s in seen if not s.startswith("--")]  # (not SQLite's own FTS work)


async def test_a_send_start_reads_no_page_and_as_much_with_every_row_loaded(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    window = await filled_window(tmp_path, wire_server)
    try:
        await window.first_paint.wait()
        await loop_passes()
        model = window.sidebar.model
        loaded = len(top_ids(model))
        few = await send(window, "hello")
        assert not [s for s in few if LISTING in s]
        assert len([s for s in few if CHILDREN in s]) <= 1  # the new row's own
        assert len(top_ids(model)) == loaded + 1  # the new row, no page more
        model.fetch_all()
        await loop_passes()
        assert len(top_ids(model)) > ROOTS
        every = await send(window, "again")
        assert not [s for s in every if LISTING in s]
        assert len([s for s in every if CHILDREN in s]) <= 1
        assert len(every) <= len(few)  # nothing grows with the rows loaded
        assert window.sidebar.view.currentIndex() == top(model, 0)  # the new row
        assert model.conversation(top(model, 0)).id == window.current_id  # type: ignore[union-attr]
    finally:
        await closed(window)


def test_a_page_brings_the_forks_of_its_rows_in_one_query(tmp_path: Path, qtbot: QtBot) -> None:
    store = open_store(fill(tmp_path / "ikgui.db"))
    try:
        bar = shown_sidebar(store, qtbot)
        before = len(top_ids(bar.model))
        with statements(store) as seen:
            bar.model.fetchMore(QModelIndex())
            bar.view.viewport().repaint()  # the view lays the new rows out
            qtbot.wait(10)
        assert len(top_ids(bar.model)) > before + 50
        pages = [s for s in seen if LISTING in s]
        children = [s for s in seen if CHILDREN in s or CHILDREN_OF in s]
        assert 1 <= len(children) <= len(pages), (len(children), len(pages))  # one a page
        assert shown(bar.model)[:4] == [
            ("conv-0699", []),
            ("conv-0698", []),
            ("conv-0697", []),
            ("conv-0696", ["fork-0696"]),
        ]
    finally:
        store.close()


async def test_after_sends_the_sidebar_shows_what_a_fresh_one_shows(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    window = await filled_window(tmp_path, wire_server)
    try:
        await window.first_paint.wait()
        await send(window, "hello")
        window.sidebar.model.fetchMore(QModelIndex())  # a page read ahead of its forks...
        store = window.session.store
        parent = "conv-0601"  # ...then a fork of one of its rows before the view asks
        assert window.sidebar.model.index_of(parent).isValid()  # (its forks not asked)
        store.insert_conversation(Conversation("fork-late", parent=parent, created_at=2e6))
        window.sidebar.refresh_conversation("fork-late")
        await send(window, "again")
        mine = shown(window.sidebar.model)
        fresh = ConversationSidebar(store)
        qtbot.addWidget(fresh)
        while len(top_ids(fresh.model)) < len(mine) and fresh.model.canFetchMore(QModelIndex()):
            fresh.model.fetchMore(QModelIndex())
        assert shown(fresh.model)[: len(mine)] == mine
        assert dict(mine)[parent] == ["fork-late"]
        # (``fresh`` outlives the store closed with the window: it reads no more pages.)
        fresh.model.pages_held = True
    finally:
        await closed(window)


def test_a_rows_arrow_follows_its_forks_without_a_question_per_row(
    tmp_path: Path, qtbot: QtBot
) -> None:
    store = open_store(fill(tmp_path / "ikgui.db"))
    try:
        bar = shown_sidebar(store, qtbot)
        bar.view.viewport().repaint()
        model = bar.model
        leaf, parent = model.index_of("conv-0699"), model.index_of("conv-0696")
        assert leaf.data(ExpandedRole) is None  # nothing under it: no arrow
        assert parent.data(ExpandedRole) is False  # forks under it, folded
        with statements(store) as seen:  # (the page's forks were read with it)
            bar.view.doItemsLayout()
            bar.view.viewport().repaint()
        assert not [s for s in seen if CHILDREN in s or CHILDREN_OF in s]
        store.insert_conversation(Conversation("fork-new", parent="conv-0699", created_at=2e6))
        bar.refresh_conversation("fork-new")  # a fork of a leaf: it is one no longer
        assert model.index_of("conv-0699").data(ExpandedRole) is False
        assert shown(model)[0] == ("conv-0699", ["fork-new"])
    finally:
        store.close()

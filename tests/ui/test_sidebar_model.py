"""The sidebar's models keep Qt's item-model rules: pytest-qt's ``qtmodeltester`` with
Qt's own QAbstractItemModelTester (and, where it can follow, pytest-qt's Python port).

The tester stays attached while the rows change, so every insert, move, removal and
data change the sidebar makes (refresh, reload, the tag filter, the Trash view, lazy
pages, search results) is checked as it happens, on a real SQLite store; ``recheck``
runs every check again on the model as it then is. A broken rule is logged under
``qt.modeltest`` and fails the test.

The tester is attached before the sidebar's view: the view fetches the next page from
inside its own ``modelReset`` slot, and a tester connected after it would take that
page for rows inserted during the reset.
"""

from __future__ import annotations

import weakref

import pytest
from PySide6.QtCore import QAbstractItemModel, QModelIndex
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from ikgui.storage import SqliteStore
from ikgui.ui.sidebar.conversation_model import ConversationListModel, IdRole
from ikgui.ui.sidebar.delegate import ConversationDelegate
from ikgui.ui.sidebar.node import Node
from ikgui.ui.sidebar.search import SearchResultsModel
from ikgui.ui.sidebar.view import ConversationListView
from tests.support.sidebar_rows import child_ids, top, top_ids
from tests.ui.test_sidebar import HOUR, NOW, add, db_path, store

__all__ = ["db_path", "store"]

TESTERS = pytest.mark.parametrize("python_tester", [False, True], ids=["qt", "python"])


def recheck(model: QAbstractItemModel) -> None:
    """Run every check on the model as it is now (Qt's tester runs them all when made);
    the conversation list's rows are also those its nodes make afresh (headers where
    groups start, forks under expanded rows, the gap where it was)."""
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Warning)
    if isinstance(model, ConversationListModel):
        assert model.rowCount() == len(model._rows)
        tail = [r.row for r in model._rows[model._gap_row() + 1 :] if isinstance(r, Node)]
        tail_from = tail[0] if model.gap and tail else None
        assert model._rows == model._layout(tail_from)


def show(qtbot: QtBot, model: QAbstractItemModel) -> ConversationListView:
    """The sidebar's view and delegate over ``model``, shown (it asks for rows, fetches
    pages and expands rows as the sidebar's does)."""
    view = ConversationListView()
    view.setItemDelegate(ConversationDelegate(view))
    view.setModel(model)
    qtbot.addWidget(view)
    view.resize(300, 600)
    view.show()
    qtbot.waitExposed(view)
    return view


def populate(store: SqliteStore) -> None:
    add(store, "chat-root", ago=5 * HOUR, title="Root", tags=["work"])
    add(store, "chat-fk01", ago=HOUR, parent="chat-root", title="Fork", tags=["work"])
    add(store, "chat-fk02", ago=10, parent="chat-fk01", title="Fork of a fork")
    add(store, "chat-dead", ago=2 * HOUR, parent="chat-root", status="killed")
    add(store, "coder-solo", ago=3 * HOUR, agent="coder", tags=["home"])
    add(store, "chat-bin1", ago=4 * HOUR, title="In the Trash", trashed=True)
    add(store, "chat-bin2", ago=6 * HOUR, parent="chat-root", trashed=True)
    store.append_event("chat-root", "user", "hello", created_at=NOW - 5 * HOUR)
    store.append_event("chat-root", "assistant", "hi", created_at=NOW - 5 * HOUR)


@TESTERS
def test_the_conversation_list_through_every_change(
    store: SqliteStore, qtbot: QtBot, qtmodeltester: ModelTester, python_tester: bool
) -> None:
    populate(store)
    model = ConversationListModel(store)
    qtmodeltester.check(model, force_py=python_tester)
    model.fetchMore(QModelIndex())  # the first page, as the sidebar reads it
    show(qtbot, model)
    model.expand_all()  # loads every fork
    assert top_ids(model) == ["coder-solo", "chat-root"]
    assert child_ids(model, model.reveal("chat-fk01")) == ["chat-fk02"]
    recheck(model)

    # rows change in place, move to the top, appear at the top and under a parent
    store.update_conversation("chat-fk01", title="Renamed fork")
    model.refresh("chat-fk01")
    store.append_event("chat-root", "user", "back again", created_at=NOW)
    model.refresh("chat-root")
    add(store, "chat-new1", ago=-60, title="Brand new")
    model.refresh("chat-new1")
    add(store, "chat-fk03", ago=-30, parent="chat-root")
    model.refresh("chat-fk03")
    model.set_streaming("chat-fk03", True)
    assert top_ids(model) == ["chat-new1", "chat-root", "coder-solo"]
    assert child_ids(model, model.index_of("chat-root")) == ["chat-dead", "chat-fk01", "chat-fk03"]
    recheck(model)

    # another program trashed, restored, wrote, forked and deleted: a reload applies it
    store.update_conversation("chat-new1", trashed_at=1.0)
    store.update_conversation("chat-bin2", trashed_at=None)
    store.append_event("coder-solo", "user", "deep", created_at=NOW)
    add(store, "chat-fk04", ago=-90, parent="chat-fk02")
    store.delete_conversations(["chat-dead"])
    model.reload()
    model.expand_all()
    assert top_ids(model) == ["coder-solo", "chat-root"]
    assert child_ids(model, model.index_of("chat-root")) == ["chat-bin2", "chat-fk01", "chat-fk03"]
    assert child_ids(model, model.index_of("chat-fk02")) == ["chat-fk04"]
    recheck(model)

    # trashing a parent makes its forks top-level rows (refresh, then reload: as the
    # window does it)
    store.update_conversation("chat-fk01", trashed_at=2.0)
    model.refresh("chat-fk01")
    model.reload()
    assert top_ids(model) == ["coder-solo", "chat-root", "chat-fk02"]
    recheck(model)

    # the tag filter and the Trash view (each a reset, then the first page, as the
    # sidebar does it)
    model.set_filter(tag="work")
    model.fetchMore(QModelIndex())
    assert top_ids(model) == ["chat-root"] and child_ids(model, top(model, 0)) == []
    model.set_filter(trashed=True)
    model.fetchMore(QModelIndex())
    model.expand_all()
    assert top_ids(model) == ["chat-new1", "chat-fk01", "chat-bin1"]
    recheck(model)
    model.set_filter(tag="work", trashed=True)
    model.fetchMore(QModelIndex())
    assert top_ids(model) == ["chat-fk01"]
    model.set_filter()
    model.fetchMore(QModelIndex())
    assert top_ids(model) == ["coder-solo", "chat-root", "chat-fk02"]
    recheck(model)


@TESTERS
def test_lazy_pages(
    store: SqliteStore, qtbot: QtBot, qtmodeltester: ModelTester, python_tester: bool
) -> None:
    with store.transaction():
        for i in range(250):
            add(store, f"chat-{i:04d}", ago=i * 60.0, parent="chat-0000" if i % 50 == 7 else None)
    model = ConversationListModel(store, page_size=40)
    qtmodeltester.check(model, force_py=python_tester)  # fetches, and checks the pages
    view = show(qtbot, model)
    view.scrollToBottom()  # the view asks for pages as it scrolls
    model.fetch_all()
    assert len(top_ids(model)) == 245  # five of the 250 are forks of chat-0000
    model.expand_all()
    forks = ["chat-0207", "chat-0157", "chat-0107", "chat-0057", "chat-0007"]
    assert child_ids(model, model.index_of("chat-0000")) == forks
    recheck(model)


@TESTERS
def test_search_results(
    store: SqliteStore, qtbot: QtBot, qtmodeltester: ModelTester, python_tester: bool
) -> None:
    populate(store)
    add(store, "chat-also", ago=20, title="hello there")
    streaming: set[str] = set()
    model = SearchResultsModel(streaming.__contains__)
    qtmodeltester.check(model, force_py=python_tester)
    show(qtbot, model)
    model.set_hits("hello", store.search("hello"))
    assert sorted(model.index(r, 0).data(IdRole) for r in range(2)) == ["chat-also", "chat-root"]
    store.update_conversation("chat-also", title="hello again")
    model.update_conversation(store.get_conversation("chat-also"))  # type: ignore[arg-type]
    streaming.add("chat-root")
    model.changed("chat-root")
    model.refresh_times()
    recheck(model)
    model.set_hits("nothing", [])
    assert model.rowCount() == 0
    recheck(model)


def test_a_fork_trashed_elsewhere_leaves_its_own_forks_on_top_after_one_reload(
    store: SqliteStore, qtbot: QtBot
) -> None:
    populate(store)
    model = ConversationListModel(store)
    model.fetchMore(QModelIndex())
    show(qtbot, model)
    model.expand_all()
    assert child_ids(model, model.reveal("chat-fk01")) == ["chat-fk02"]
    store.update_conversation("chat-fk01", trashed_at=NOW)  # another program trashed it
    model.reload()  # what the window's polling does
    assert "chat-fk01" not in top_ids(model)
    assert "chat-fk02" in top_ids(model)  # its fork stays in view, now at the top
    recheck(model)


@TESTERS
def test_end_reads_the_oldest_page_and_the_gap_fills_from_both_sides(
    store: SqliteStore, qtbot: QtBot, qtmodeltester: ModelTester, python_tester: bool
) -> None:
    with store.transaction():
        for i in reversed(range(400)):  # a minute apart, a fork now and then
            add(store, f"chat-{i:04d}", ago=i * 60.0, parent="chat-0399" if i % 97 == 5 else None)
    model = ConversationListModel(store, page_size=30)
    qtmodeltester.check(model, force_py=python_tester)
    show(qtbot, model)
    model.pages_held = True  # (the pages come when the test asks)
    model.fetch_tail()
    assert model.gap
    recheck(model)
    assert top_ids(model)[-1] == "chat-0399"  # the oldest conversation, read first
    model.expand(model.index_of("chat-0399"))
    recheck(model)

    # sends: a row from below the gap goes to the top; a new one comes at the top
    store.append_event("chat-0390", "user", "again", created_at=NOW + 5)
    model.refresh("chat-0390")
    add(store, "chat-new1", ago=-60)
    model.refresh("chat-new1")
    assert top_ids(model)[:2] == ["chat-new1", "chat-0390"]
    recheck(model)
    # a conversation in the gap's range is not shown until a page brings it
    store.update_conversation("chat-0200", title="Renamed in the gap")
    model.refresh("chat-0200")
    assert "chat-0200" not in top_ids(model)
    recheck(model)
    # another program wrote: a reload keeps the gap and both sides
    store.update_conversation("chat-0398", trashed_at=1.0)
    model.reload()
    assert model.gap and "chat-0398" not in top_ids(model)
    recheck(model)

    while model.gap:  # from below (older first), then from above, until they meet
        model.fill_gap(from_below=True)
        recheck(model)
        model.fill_gap(from_below=False)
        recheck(model)
    fresh = ConversationListModel(store)
    fresh.fetch_all()
    assert top_ids(model) == top_ids(fresh)
    assert not model.canFetchMore(QModelIndex())


def test_rows_kept_out_of_the_collector_are_freed_when_dropped(
    store: SqliteStore, qtbot: QtBot
) -> None:
    """Each page of rows is frozen out of the collector's full passes (issue 26: no pause
    as pages arrive); a node dropped (a filter, a trashed row) holds no cycle, so it is
    still freed."""
    populate(store)
    model = ConversationListModel(store)
    model.fetch_all()
    model.expand_all()
    nodes = [weakref.ref(model._by_id[conv_id]) for conv_id in ("chat-fk02", "coder-solo")]
    assert all(n() is not None for n in nodes)
    store.update_conversation("coder-solo", trashed_at=NOW)
    model.refresh("coder-solo")  # dropped from the list
    assert nodes[1]() is None
    model.set_filter(tag="home")  # every node made again
    assert nodes[0]() is None


@TESTERS
def test_a_reload_keeps_the_gap_while_rows_stand_below_it_and_drops_it_after(
    store: SqliteStore, qtbot: QtBot, qtmodeltester: ModelTester, python_tester: bool
) -> None:
    with store.transaction():
        for i in range(200):
            add(store, f"chat-{i:04d}", ago=i * 60.0)
    model = ConversationListModel(store, page_size=30)
    qtmodeltester.check(model, force_py=python_tester)
    show(qtbot, model)
    model.pages_held = True
    model.fetch_tail()
    assert model.gap
    first = top_ids(model)[: top_ids(model).index("chat-0170")]
    assert len(first) < 170  # (the gap stands for the rest)
    for i in range(170, 200):  # every row below the gap trashed: the next oldest show there
        store.update_conversation(f"chat-{i:04d}", trashed_at=NOW)
    model.reload()
    recheck(model)
    assert model.gap and top_ids(model)[-1] == "chat-0169"
    assert top_ids(model)[len(first)] == "chat-0140"  # right below the gap
    for i in range(len(first), 170):  # then everything after the first page
        store.update_conversation(f"chat-{i:04d}", trashed_at=NOW)
    model.reload()
    recheck(model)
    assert not model.gap
    model.pages_held = False
    model.fetch_all()
    assert top_ids(model) == first

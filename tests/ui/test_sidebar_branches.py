"""Branches in the sidebar (issue 12 item 3): a fork's row counts what it carries and
its own ("5 messages · 2 in this branch", in words since issue 25); indentation stops
after three levels, deeper forks saying "branch of <title>" instead; the model keeps
Qt's rules through it."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.storage import SqliteStore
from ikgui.ui.sidebar.conversation_model import ConversationListModel, DetailRole
from ikgui.ui.sidebar.delegate import indent_of
from ikgui.ui.sidebar.tree import MAX_INDENT
from tests.support.sidebar_rows import child_ids
from tests.ui.test_sidebar import db_path, store
from tests.ui.test_sidebar_model import recheck, show

__all__ = ["db_path", "store"]


def test_a_fork_row_counts_carried_and_own_messages(store: SqliteStore, qtbot: QtBot) -> None:
    session = Session(store)
    for text in ("one", "two", "three"):
        session.append(Kind.USER, text)
    root = session.conversation.id
    fork = session.fork()
    session.append(Kind.USER, "mine")
    session.append(Kind.ASSISTANT, "yours")
    model = ConversationListModel(store)
    model.fetchMore(QModelIndex())
    show(qtbot, model)
    model.expand_all()
    row = model.reveal(fork.id)
    qtbot.waitUntil(lambda: "5 messages · 2 in this branch" in str(row.data(DetailRole)))
    assert "carried" in str(row.data(Qt.ItemDataRole.AccessibleTextRole))
    root_row = model.reveal(root)
    qtbot.waitUntil(lambda: "3 messages" in str(root_row.data(DetailRole)))
    assert "branch" not in str(root_row.data(DetailRole))


def test_indentation_stops_after_three_levels(
    store: SqliteStore, qtbot: QtBot, qtmodeltester: ModelTester
) -> None:
    session = Session(store)
    session.append(Kind.USER, "Deep thoughts")
    chain = [session.conversation.id]
    for _ in range(6):
        chain.append(session.fork().id)
    model = ConversationListModel(store)
    qtmodeltester.check(model)
    model.fetchMore(QModelIndex())
    view = show(qtbot, model)
    model.expand_all()
    rows = [model.reveal(conv_id) for conv_id in chain]
    assert all(row.isValid() for row in rows)
    # where each row's content starts (the delegate indents it: the rows are a flat list)
    lefts = [view.visualRect(row).left() + indent_of(row) for row in rows]
    assert lefts[0] < lefts[1] < lefts[2] < lefts[3]
    assert lefts[3:] == [lefts[3]] * (len(chain) - 3)  # no further indent
    details = [str(row.data(DetailRole)) for row in rows]
    assert not any("branch of" in d for d in details[: MAX_INDENT + 1])
    assert store.get_conversation(chain[4]).title == "↳ Deep thoughts · branch 1.1.1.1"  # type: ignore[union-attr]
    assert details[5].startswith("branch of “branch 1.1.1.1” · ")
    # the unindented forks follow each other, each after its parent
    assert child_ids(model, rows[2]) == chain[3:]
    assert [r.row() for r in rows[3:]] == [rows[2].row() + n for n in (1, 2, 3, 4)]
    assert all(model.parent_row(r) == rows[2] for r in rows[3:])
    # a new deep fork appears in its place after a refresh
    session.open(chain[4])
    extra = session.fork().id
    model.refresh(extra)
    # after its older sibling's subtree
    assert child_ids(model, model.reveal(chain[2])) == [*chain[3:], extra]
    assert model.reveal(extra).row() == model.reveal(chain[2]).row() + 5
    recheck(model)
    model.reload()
    assert model.reveal(chain[-1]).isValid()
    recheck(model)

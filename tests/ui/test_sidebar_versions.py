"""Issue 25 item 2: alternatives made by Edit and resend and by Retry do not flood the
sidebar — they fold into the row of the conversation they are versions of, which says
``N versions`` and expands to show them; opening one grows no row; deliberate forks show
as before, with a branch glyph and the part of their title that tells them apart kept
when the title is elided."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt
from PySide6.QtGui import QFont, QFontMetrics
from pytestqt.qtbot import QtBot

from ikgui.domain.events import BRANCH_COMPARE, BRANCH_EDIT, BRANCH_RETRY, Kind
from ikgui.domain.session.session import Session
from ikgui.storage import SqliteStore
from ikgui.ui.sidebar.conversation_model import DetailRole, IdRole
from ikgui.ui.sidebar.delegate import INDENT
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.sidebar.rows import BranchRole, VersionsRole
from ikgui.ui.sidebar.titles import fit_branch_title, shown_title
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.sidebar_rows import row_ids
from tests.support.waiting import wait_until
from tests.support.wire_server import WireServer
from tests.ui.styled import app_styled
from tests.ui.test_sidebar import Make, db_path, make_sidebar, store
from tests.ui.test_sidebar_model import recheck
from tests.ui.test_window import reply, settle, type_and_send, window

__all__ = ["db_path", "make_sidebar", "store", "window", "wire_server", "wire_server_session"]


def _shown_rows(sidebar: ConversationSidebar) -> list[str]:
    """The ids of the rows a user sees, top to bottom (collapsed rows hide theirs)."""
    return row_ids(sidebar.model)


def _family(store: SqliteStore) -> tuple[str, str, str, str, str]:
    """A conversation with an edited version, a retried reply's branch, an edit of the
    edit, and a deliberate fork: (root, edit, retry, edit of the edit, fork)."""
    session = Session(store)
    session.append(Kind.USER, "Write unit tests for date parsing")
    session.append(Kind.ASSISTANT, "Here are some tests")
    asked = session.append(Kind.USER, "Add time zones")
    session.append(Kind.ASSISTANT, "With zones")
    root = session.conversation.id
    edit = session.fork(asked.id - 1, reason=BRANCH_EDIT).id
    session.append(Kind.USER, "Add leap years")
    session.append(Kind.ASSISTANT, "With leap years")
    again = session.fork(reason=BRANCH_EDIT).id
    session.append(Kind.USER, "Add leap seconds")
    session.open(root)
    retry = session.fork(asked.id, reason=BRANCH_RETRY).id
    session.append(Kind.ASSISTANT, "Zones, again")
    session.open(root)
    fork = session.fork().id
    return root, edit, retry, again, fork


def test_alternatives_fold_into_their_row_which_counts_the_versions(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    root, edit, retry, again, fork = _family(store)
    sidebar = make_sidebar()
    model = sidebar.model
    assert _shown_rows(sidebar) == [root]
    top = model.index_of(root)
    qtbot.waitUntil(lambda: top.data(VersionsRole) == 4)  # itself, 2 edits, a retry
    assert model.index_of(root).data(BranchRole) is None
    said = str(top.data(Qt.ItemDataRole.AccessibleTextRole))
    assert ", 4 versions (edited or retried), expand the row to list them, level 1" in said
    assert [c.id for c in model.members(top)] == [root, edit, retry, again]

    # opening an edited version (an alternative of the edited turn) grows no row: the
    # conversation's own row stands for it
    sidebar.set_current(again)
    assert _shown_rows(sidebar) == [root]
    assert sidebar.view.currentIndex().data(IdRole) == root
    # ... and clicking that row opens the version last shown, not the original
    place = sidebar.view.visualRect(sidebar.view.currentIndex()).bottomLeft()
    with qtbot.waitSignal(sidebar.conversation_activated) as opened:
        qtbot.mouseClick(
            sidebar.view.viewport(), Qt.MouseButton.LeftButton, pos=place + QPoint(60, -12)
        )
    assert opened.args == [again, None]

    # a deliberate fork shows as a row of its own, under its parent
    sidebar.set_current(fork)
    assert sidebar.view.currentIndex().data(IdRole) == fork
    assert sidebar.view.currentIndex().data(BranchRole) == "fork"
    shown = _shown_rows(sidebar)
    assert shown[0] == root and fork in shown and edit in shown  # expanded: every version
    # each alternative says what it is; only the top of a family counts versions
    edit_row = model.index_of(edit)
    assert edit_row.data(BranchRole) == BRANCH_EDIT
    assert str(edit_row.data(DetailRole)).startswith("edited · ")
    assert "edited version" in str(edit_row.data(Qt.ItemDataRole.AccessibleTextRole))
    assert str(model.index_of(retry).data(DetailRole)).startswith("retried · ")
    assert edit_row.data(VersionsRole) == 0
    assert model.index_of(fork).data(VersionsRole) == 0
    # expanded, an alternative is selected as itself
    sidebar.set_current(edit)
    assert sidebar.view.currentIndex().data(IdRole) == edit
    recheck(model)


def test_a_new_edit_adds_a_version_not_a_row(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    session = Session(store)
    session.append(Kind.USER, "Plan a trip")
    asked = session.append(Kind.USER, "To Lisbon")
    root = session.conversation.id
    sidebar = make_sidebar()
    sidebar.set_current(root)
    assert not model_versions(sidebar, root)
    edit = session.fork(asked.id - 1, reason=BRANCH_EDIT).id
    session.append(Kind.USER, "To Porto")
    sidebar.refresh_conversation(edit)
    sidebar.set_current(edit)
    assert _shown_rows(sidebar) == [root]
    qtbot.waitUntil(lambda: model_versions(sidebar, root) == 2)
    assert sidebar.view.currentIndex().data(IdRole) == root
    # a compared model's answer is a branch of its own (a glyph), not a version
    session.open(root)
    compared = session.fork(reason=BRANCH_COMPARE).id
    sidebar.refresh_conversation(compared)
    sidebar.set_current(compared)
    assert sidebar.view.currentIndex().data(IdRole) == compared
    assert model_versions(sidebar, root) == 2


def model_versions(sidebar: ConversationSidebar, conv_id: str) -> int:
    return int(sidebar.model.index_of(conv_id).data(VersionsRole) or 0)


def test_a_branch_title_keeps_its_own_part_and_elides_the_shared_start(
    qtbot: QtBot,
) -> None:
    metrics = QFontMetrics(QFont())
    title = "↳ Write unit tests for date par… · branch 2"
    shown = shown_title(title, branch=True)
    assert shown == "Write unit tests for date par… · branch 2"
    narrow = metrics.horizontalAdvance("Write unit tests · branch 2")
    fitted = fit_branch_title(shown, metrics, narrow)
    assert fitted.endswith(" · branch 2") and fitted.startswith("Write")
    assert "…" in fitted and metrics.horizontalAdvance(fitted) <= narrow
    # a compared model's answer keeps its model's name
    answer = fit_branch_title("How do I parse ISO dates? · gpt-4o-mini", metrics, narrow)
    assert answer.endswith(" · gpt-4o-mini")
    # too narrow for any of the start: the own part comes first
    tight = metrics.horizontalAdvance("… · branch 2")
    assert fit_branch_title(shown, metrics, tight).endswith("branch 2")
    # a title without an own part is elided at its end; one that fits is left alone
    assert fit_branch_title("Plain title that is long", metrics, 40).startswith("Pl")
    assert fit_branch_title("Short · b", metrics, 500) == "Short · b"
    assert shown_title("↳ Not painted", branch=False) == "↳ Not painted"
    assert QModelIndex().data(BranchRole) is None


def test_a_selected_row_with_versions_shows_it_can_open(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    """The style sheet's background for a selected row's branch area dropped Qt's arrow:
    the row an opened edit selects looked like a row with nothing under it."""
    root, edit, *_ = _family(store)
    with app_styled("light"):
        sidebar = make_sidebar()
        sidebar.set_current(edit)
        view = sidebar.view
        index = view.currentIndex()
        assert index.data(IdRole) == root and not sidebar.model.is_expanded(index)

        def arrow_ink() -> int:
            """How many dark pixels the row's arrow cell has (the light theme's text)."""
            image = view.viewport().grab().toImage()
            row = view.visualRect(index)
            return sum(
                image.pixelColor(x, y).lightness() < 128
                for x in range(2, INDENT - 2)  # a top-level row's arrow cell
                for y in range(max(row.top(), 0), row.bottom())
            )

        qtbot.waitUntil(lambda: arrow_ink() > 4)


async def test_edit_and_resend_in_the_window_grows_no_row(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    """The issue's "Done when": an earlier message edited and resent, and the sidebar
    still shows the one conversation (its row selected, saying "2 versions")."""
    wire_server.route("/v1/chat/completions", reply("Cobalt"))
    await type_and_send(qtbot, window, "Which blue?")
    await settle(window)
    await type_and_send(qtbot, window, "Cheaper?")
    await settle(window)
    root = window.current_id
    before = _shown_rows(window.sidebar)
    asked = next(e for e in window.session.state.context if e.content == "Which blue?")
    wire_server.route("/v1/chat/completions", reply("Ultramarine"))
    window.commands.edit_and_resend(asked.id, "Which blue for skies?")
    await settle(window)
    edit = window.current_id
    assert edit != root and window.session.conversation.branch_reason == BRANCH_EDIT
    assert _shown_rows(window.sidebar) == before
    current = window.sidebar.view.currentIndex()
    assert current.data(IdRole) == root
    await wait_until(lambda: current.data(VersionsRole) == 2)

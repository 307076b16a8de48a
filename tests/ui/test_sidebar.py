# mypy: disable-error-code="no-untyped-call"
# (pytest-qt's QtBot key and mouse helpers carry no annotations)
"""The conversation sidebar over a real SQLite store: order, forks, lazy pages, in-place
updates, search, tag filter, Trash, inline rename, the tag editor, the context menu,
keyboard use and changes made by another process."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QToolButton
from pytestqt.qtbot import QtBot

from ikgui.domain.events import STATUS_KILLED, Conversation
from ikgui.domain.text.times import short_date
from ikgui.storage import SqliteStore, open_store
from ikgui.ui.sidebar.conversation_model import (
    ClosedRole,
    ConversationListModel,
    ConversationRole,
    DetailRole,
    EventIdRole,
    IdRole,
    MessageCountRole,
    RelativeTimeRole,
    SnippetRole,
    StreamingRole,
    TagsRole,
    TitleRole,
)
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.sidebar.rows import ExpandedRole
from tests.support.sidebar_rows import child, child_ids, row_ids, top, top_ids

NOW = time.time()


@pytest.fixture(autouse=True)
def _fresh_now() -> None:
    """Times are relative to the test's own start, not to when the module was imported
    (a long suite would turn "now" into "1m ago")."""
    global NOW
    NOW = time.time()


HOUR = 3600.0


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "ikgui.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[SqliteStore]:
    opened = open_store(db_path)
    yield opened
    opened.close()


def add(
    store: SqliteStore,
    cid: str,
    *,
    ago: float = 0.0,
    parent: str | None = None,
    title: str | None = None,
    agent: str | None = None,
    tags: Sequence[str] = (),
    status: str = "active",
    trashed: bool = False,
) -> Conversation:
    conv = Conversation(
        id=cid,
        parent=parent,
        agent=agent,
        title=title,
        tags=tuple(tags),
        status=status,
        created_at=NOW - ago - HOUR,
        updated_at=NOW - ago,
        trashed_at=NOW - ago if trashed else None,
    )
    store.insert_conversation(conv)
    return conv


Make = Callable[[], ConversationSidebar]


@pytest.fixture
def make_sidebar(qtbot: QtBot, store: SqliteStore) -> Make:
    def make() -> ConversationSidebar:
        sidebar = ConversationSidebar(store)
        qtbot.addWidget(sidebar)
        sidebar.resize(300, 600)
        sidebar.show()
        qtbot.waitExposed(sidebar)
        return sidebar

    return make


def select(sidebar: ConversationSidebar, conv_id: str) -> QModelIndex:
    sidebar.set_current(conv_id)
    index = sidebar.view.currentIndex()
    assert index.data(IdRole) == conv_id
    return index


# -- the list ----------------------------------------------------------------------------


def test_rows_are_newest_first_and_show_their_fields(
    store: SqliteStore, make_sidebar: Make
) -> None:
    add(store, "chat-old1", ago=3 * 86400, title="Old one")
    add(store, "coder-mid2", ago=2 * HOUR, title="Api design", agent="coder", tags=["work"])
    add(store, "chat-new3", ago=30)
    store.append_event("coder-mid2", "user", "hello", created_at=NOW - 2 * HOUR)
    store.append_event("coder-mid2", "assistant", "hi!", created_at=NOW - 2 * HOUR)
    sidebar = make_sidebar()
    model = sidebar.model

    assert top_ids(model) == ["chat-new3", "coder-mid2", "chat-old1"]
    new, mid, old = (top(model, r) for r in range(3))
    assert new.data(TitleRole) == "Untitled"
    assert new.data(Qt.ItemDataRole.DisplayRole) == "Untitled"
    now = time.time()
    assert new.data(RelativeTimeRole) == short_date(NOW - 30, now)
    assert mid.data(TitleRole) == "Api design"
    assert mid.data(MessageCountRole) == 2
    mid_date = short_date(NOW - 2 * HOUR, now)
    assert mid.data(DetailRole) == f"coder · 2 messages · {mid_date}"  # the id is not on the row
    assert mid.data(TagsRole) == ("work",)
    assert mid.data(RelativeTimeRole) == mid_date
    assert isinstance(mid.data(ConversationRole), Conversation)
    assert "agent coder" in mid.data(Qt.ItemDataRole.ToolTipRole)
    assert "id coder-mid2" in mid.data(Qt.ItemDataRole.ToolTipRole)
    assert old.data(RelativeTimeRole) == short_date(NOW - 3 * 86400, now)


def test_forks_are_nested_under_their_parents(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-root", ago=5 * HOUR, title="Root")
    add(store, "chat-fk01", ago=HOUR, parent="chat-root", title="Fork")
    add(store, "chat-fk02", ago=10, parent="chat-fk01", title="Fork of a fork")
    add(store, "chat-dead", ago=2 * HOUR, parent="chat-root", status=STATUS_KILLED)
    add(store, "chat-solo", ago=3 * HOUR)
    sidebar = make_sidebar()
    model = sidebar.model

    # forks are newer than their root, yet they are rows under it, not top-level rows
    assert top_ids(model) == ["chat-solo", "chat-root"]
    root = top(model, 1)
    assert model.has_children(root)
    assert not model.has_children(top(model, 0))
    assert root.data(ExpandedRole) is False and top(model, 0).data(ExpandedRole) is None
    # a screen reader hears what a tree would say: the level, and what is under a row
    spoken = str(root.data(Qt.ItemDataRole.AccessibleTextRole))
    assert spoken.endswith("level 1, 2 rows under it, collapsed: Right shows them")
    assert str(top(model, 0).data(Qt.ItemDataRole.AccessibleTextRole)).endswith("level 1")
    # children oldest first (by creation)
    assert child_ids(model, root) == ["chat-dead", "chat-fk01"]
    fork = child(model, root, 1)
    assert child_ids(model, fork) == ["chat-fk02"]
    assert model.parent_row(child(model, fork, 0)) == fork
    assert model.parent_row(fork) == root
    model.collapse(root)
    assert row_ids(model) == ["chat-solo", "chat-root"]  # the subtree is hidden
    model.expand(root)
    assert row_ids(model) == ["chat-solo", "chat-root", "chat-dead", "chat-fk01", "chat-fk02"]
    model.collapse(root)

    dead = child(model, root, 0)
    assert dead.data(ClosedRole) is True
    assert "closed" in dead.data(Qt.ItemDataRole.AccessibleTextRole)
    assert fork.data(ClosedRole) is False

    # revealing a grandchild expands its ancestors, without an activation
    with qtbot.assertNotEmitted(sidebar.conversation_activated):
        sidebar.set_current("chat-fk02")
    assert sidebar.view.currentIndex().data(IdRole) == "chat-fk02"
    assert model.is_expanded(root) and model.is_expanded(fork)


def test_pages_load_lazily_by_keyset(store: SqliteStore, qtbot: QtBot) -> None:
    with store.transaction():
        for i in range(250):
            add(store, f"chat-{i:04d}", ago=i * 60.0)
    model = ConversationListModel(store)
    assert len(top_ids(model)) == 0 and model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    assert len(top_ids(model)) == 100
    model.fetchMore(QModelIndex())
    assert len(top_ids(model)) == 200
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    assert len(top_ids(model)) == 250
    assert not model.canFetchMore(QModelIndex())
    assert top_ids(model) == [f"chat-{i:04d}" for i in range(250)]

    sidebar = ConversationSidebar(store)  # not shown: only the first page is read
    qtbot.addWidget(sidebar)
    assert len(top_ids(sidebar.model)) == 100


def test_a_revealed_row_on_a_later_page_loads_the_pages_before_it(
    store: SqliteStore, make_sidebar: Make
) -> None:
    with store.transaction():
        for i in range(450):
            add(store, f"chat-{i:04d}", ago=i * 60.0)
    sidebar = make_sidebar()
    sidebar.set_current("chat-0420")
    assert sidebar.view.currentIndex().data(IdRole) == "chat-0420"
    assert len(top_ids(sidebar.model)) >= 421


def test_refresh_updates_a_row_in_place(store: SqliteStore, make_sidebar: Make) -> None:
    add(store, "chat-aaaa", ago=10, title="First")
    add(store, "chat-bbbb", ago=HOUR, title="Second")
    sidebar = make_sidebar()
    model = sidebar.model
    select(sidebar, "chat-bbbb")
    resets: list[bool] = []
    changed: list[str] = []
    model.modelReset.connect(lambda: resets.append(True))
    model.dataChanged.connect(lambda first, last, roles: changed.append(first.data(IdRole)))

    store.update_conversation("chat-bbbb", title="Renamed")
    sidebar.refresh_conversation("chat-bbbb")
    assert top(model, 1).data(TitleRole) == "Renamed"
    assert "chat-bbbb" in changed

    # new activity moves the row to the top, keeping the selection
    store.append_event("chat-bbbb", "user", "more", created_at=NOW + 5)
    sidebar.refresh_conversation("chat-bbbb")
    assert top_ids(model) == ["chat-bbbb", "chat-aaaa"]
    assert top(model, 0).data(MessageCountRole) == 1
    assert sidebar.view.currentIndex().data(IdRole) == "chat-bbbb"

    # a new conversation is inserted at the top
    add(store, "chat-cccc", ago=-60, title="Brand new")
    sidebar.refresh_conversation("chat-cccc")
    assert top_ids(model) == ["chat-cccc", "chat-bbbb", "chat-aaaa"]
    assert resets == []


def test_reload_applies_changes_without_a_reset(store: SqliteStore, make_sidebar: Make) -> None:
    for i in range(5):
        add(store, f"chat-{i:04d}", ago=i * HOUR)
    add(store, "chat-fork", ago=30 * HOUR, parent="chat-0002")
    sidebar = make_sidebar()
    model = sidebar.model
    select(sidebar, "chat-0003")
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))

    store.update_conversation("chat-0001", trashed_at=NOW)
    store.append_event("chat-0004", "user", "back", created_at=NOW + 1)
    add(store, "chat-0005", ago=-10)
    add(store, "chat-fk02", ago=-20, parent="chat-0002")
    sidebar.reload()

    assert top_ids(model) == ["chat-0005", "chat-0004", "chat-0000", "chat-0002", "chat-0003"]
    assert child_ids(model, top(model, 3)) == ["chat-fork", "chat-fk02"]
    assert sidebar.view.currentIndex().data(IdRole) == "chat-0003"
    assert resets == []


# -- search, tags, Trash ---------------------------------------------------------------


def test_search_finds_a_message_and_activates_at_its_event(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-aaaa", ago=HOUR, title="Brewing notes")
    add(store, "chat-bbbb", ago=10, title="Other")
    store.append_event("chat-aaaa", "user", "what is zymurgy exactly?", created_at=NOW - HOUR)
    hit = store.append_event(
        "chat-aaaa", "assistant", "Zymurgy is the chemistry of fermentation.", created_at=NOW
    )
    sidebar = make_sidebar()
    qtbot.keyClicks(sidebar.search_box, "zymurgy")
    assert not sidebar.searching  # debounced
    qtbot.waitUntil(lambda: sidebar.searching, timeout=2000)

    view = sidebar.view
    assert view.model() is sidebar.search_model
    assert view.model().rowCount() == 1
    row = view.model().index(0, 0)
    assert row.data(IdRole) == "chat-aaaa"
    assert "fermentation" in row.data(SnippetRole)
    assert row.data(EventIdRole) == hit.id

    with qtbot.waitSignal(sidebar.conversation_activated) as signal:
        qtbot.mouseClick(
            view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(row).center()
        )
    assert signal.args == ["chat-aaaa", hit.id]

    sidebar.search_box.clear()
    assert view.model() is sidebar.model
    assert top_ids(sidebar.model) == ["chat-aaaa", "chat-bbbb"]


def test_tag_filter(store: SqliteStore, make_sidebar: Make) -> None:
    add(store, "chat-aaaa", ago=10, tags=["work"])
    add(store, "chat-bbbb", ago=20, tags=["home"])
    add(store, "chat-cccc", ago=30, tags=["work", "home"])
    add(store, "chat-fork", ago=5, parent="chat-bbbb", tags=["work"])
    sidebar = make_sidebar()
    combo = sidebar.tag_filter
    texts = lambda: [combo.itemText(i) for i in range(combo.count())]  # noqa: E731
    assert texts() == ["Filter by tag", "#home  (2)", "#work  (3)"]

    combo.setCurrentIndex(combo.findData("work"))
    assert sidebar.tag_filters.chosen == ("work",) and combo.currentIndex() == 0
    # the fork's parent lacks the tag, so the fork is a top-level row here
    assert top_ids(sidebar.model) == ["chat-fork", "chat-aaaa", "chat-cccc"]
    sidebar.tag_filters.remove("work")
    combo.setCurrentIndex(combo.findData("home"))
    assert top_ids(sidebar.model) == ["chat-bbbb", "chat-cccc"]
    assert not sidebar.model.has_children(top(sidebar.model, 0))
    sidebar.tag_filters.choose(())
    assert top_ids(sidebar.model) == ["chat-aaaa", "chat-bbbb", "chat-cccc"]
    assert child_ids(sidebar.model, top(sidebar.model, 1)) == ["chat-fork"]


def test_trash_view_shows_only_trashed_rows_and_offers_restore(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-live", ago=10)
    add(store, "chat-gone", ago=20, trashed=True, title="Deleted")
    sidebar = make_sidebar()
    assert top_ids(sidebar.model) == ["chat-live"]

    qtbot.mouseClick(sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    assert sidebar.trash_toggle.isChecked()
    assert top_ids(sidebar.model) == ["chat-gone"]
    assert not sidebar.search_box.isEnabled()
    menu = sidebar.menu_for(top(sidebar.model, 0))
    assert menu is not None
    names = [a.objectName() for a in menu.actions() if a.objectName()]
    assert "restoreAction" in names and "trashAction" not in names
    restore = next(a for a in menu.actions() if a.objectName() == "restoreAction")
    with qtbot.waitSignal(sidebar.restore_requested) as signal:
        restore.trigger()
    assert signal.args == [["chat-gone"]]

    qtbot.mouseClick(sidebar.trash_toggle, Qt.MouseButton.LeftButton)
    assert top_ids(sidebar.model) == ["chat-live"]


# -- editing -------------------------------------------------------------------------------


def test_inline_rename_with_f2(store: SqliteStore, make_sidebar: Make, qtbot: QtBot) -> None:
    add(store, "chat-aaaa", ago=10, title="Old title")
    sidebar = make_sidebar()
    select(sidebar, "chat-aaaa")
    view = sidebar.view
    qtbot.keyClick(view, Qt.Key.Key_F2)
    assert view.state() == QAbstractItemView.State.EditingState
    editor = view.findChild(QLineEdit, "renameEditor")
    assert editor is not None and editor.text() == "Old title"

    qtbot.keyClicks(editor, "A  better   title")  # the old text was selected: replaced
    with qtbot.waitSignal(sidebar.rename_requested) as signal:
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert signal.args == ["chat-aaaa", "A better title"]


def test_click_activates_and_double_click_renames(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-aaaa", ago=10, title="Click me")
    sidebar = make_sidebar()
    view = sidebar.view
    center = view.visualRect(top(sidebar.model, 0)).center()
    with qtbot.waitSignal(sidebar.conversation_activated) as activated:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=center)
    assert activated.args == ["chat-aaaa", None]
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=center)
    assert view.state() == QAbstractItemView.State.EditingState
    assert view.findChild(QLineEdit, "renameEditor") is not None


def test_start_rename_opens_the_editor_and_escape_cancels(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-aaaa", ago=10, title="Keep")
    sidebar = make_sidebar()
    sidebar.start_rename("chat-aaaa")
    editor = sidebar.view.findChild(QLineEdit, "renameEditor")
    assert editor is not None
    qtbot.keyClicks(editor, "Nope")
    with qtbot.assertNotEmitted(sidebar.rename_requested):
        qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert sidebar.view.state() != QAbstractItemView.State.EditingState


def test_tag_editor_completes_known_tags_and_refuses_bad_ones(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-aaaa", ago=10, tags=["work"])
    add(store, "chat-bbbb", ago=20, tags=["design", "deploy", "home"])
    sidebar = make_sidebar()
    sidebar.edit_tags("chat-aaaa")
    dialog = sidebar.tag_editor
    assert dialog is not None and dialog.isVisible()
    assert dialog.chip_tags == ["work"] and dialog.line.text() == ""

    qtbot.keyClicks(dialog.line, "de")
    completer = dialog.completer
    completer.setCompletionPrefix(dialog.line.text())  # what the line edit does on typing
    found = [
        completer.completionModel().index(r, 0).data()
        for r in range(completer.completionModel().rowCount())
    ]
    assert found == ["deploy", "design"]
    completer.setCurrentRow(1)
    assert completer.currentCompletion() == "design, "

    ok = dialog.buttons.buttons()[0]
    dialog.line.setText("work, bad tag!")
    assert "Invalid tag 'tag!'" in dialog.message.text()
    assert dialog.error_text and dialog.message.isVisible()
    assert not ok.isEnabled()
    with qtbot.assertNotEmitted(sidebar.tags_requested):
        dialog.accept()
    assert dialog.isVisible()
    assert dialog.chip_tags == ["bad", "work"]  # the allowed words became chips
    chip = next(c for c in dialog.findChildren(QToolButton, "tagChip") if "bad" in c.text())
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert dialog.chip_tags == ["work"]
    qtbot.keyClick(dialog.line, Qt.Key.Key_Backspace)  # "tag!" loses its "!"
    assert dialog.error_text == "" and dialog.line.text() == "tag"
    dialog.line.clear()
    qtbot.keyClick(dialog.line, Qt.Key.Key_Backspace)  # in the empty line: the last chip
    assert dialog.chip_tags == []

    dialog.line.setText("Work, #Design deploy,, ")
    assert dialog.error_text == ""
    with qtbot.waitSignal(sidebar.tags_requested) as signal:
        qtbot.keyClick(dialog.line, Qt.Key.Key_Return)
    assert signal.args == ["chat-aaaa", ["deploy", "design", "work"]]
    assert not dialog.isVisible()


def test_context_menu_actions_emit_intents(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-aaaa", ago=10, title="Menu me")
    sidebar = make_sidebar()
    index = top(sidebar.model, 0)
    menu = sidebar.menu_for(index)
    assert menu is not None
    actions = {a.objectName(): a for a in menu.actions() if a.objectName()}
    assert set(actions) == {
        "renameAction",
        "tagsAction",
        "forkAction",
        "exportAction",
        "copyIdAction",
        "trashAction",
    }
    for name, signal in (
        ("forkAction", sidebar.fork_requested),
        ("exportAction", sidebar.export_requested),
        ("trashAction", sidebar.trash_requested),
    ):
        with qtbot.waitSignal(signal) as caught:
            actions[name].trigger()
        assert caught.args == ["chat-aaaa"]
    actions["tagsAction"].trigger()
    assert sidebar.tag_editor is not None
    sidebar.tag_editor.reject()
    actions["renameAction"].trigger()
    assert sidebar.view.state() == QAbstractItemView.State.EditingState


def test_keyboard_enter_activates_and_delete_asks_to_trash(
    store: SqliteStore, make_sidebar: Make, qtbot: QtBot
) -> None:
    add(store, "chat-aaaa", ago=10)
    add(store, "chat-bbbb", ago=20)
    sidebar = make_sidebar()
    view = sidebar.view
    select(sidebar, "chat-aaaa")
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.currentIndex().data(IdRole) == "chat-bbbb"
    with qtbot.waitSignal(sidebar.conversation_activated) as activated:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert activated.args == ["chat-bbbb", None]
    with qtbot.waitSignal(sidebar.trash_requested) as trashed:
        qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert trashed.args == ["chat-bbbb"]

    sidebar.activateWindow()
    sidebar.focus_search()
    qtbot.waitUntil(sidebar.search_box.hasFocus, timeout=2000)
    qtbot.keyClick(sidebar.search_box, Qt.Key.Key_Down)  # back to the list
    assert view.hasFocus()


# -- other processes, badges ---------------------------------------------------------------


def test_poll_picks_up_a_conversation_written_by_another_process(
    store: SqliteStore, db_path: Path, make_sidebar: Make
) -> None:
    add(store, "chat-mine", ago=HOUR)
    sidebar = make_sidebar()
    assert sidebar.poll() is False

    other = open_store(db_path)
    try:
        add(other, "chat-else", ago=0, title="From the command line", tags=["cli"])
    finally:
        other.close()
    assert sidebar.poll() is True
    assert top_ids(sidebar.model) == ["chat-else", "chat-mine"]
    assert sidebar.tag_filter.findData("cli") > 0
    assert sidebar.poll() is False


def test_streaming_badge_role(store: SqliteStore, make_sidebar: Make, qtbot: QtBot) -> None:
    add(store, "chat-aaaa", ago=10)
    sidebar = make_sidebar()
    index = top(sidebar.model, 0)
    assert index.data(StreamingRole) is False
    with qtbot.waitSignal(sidebar.model.dataChanged):
        sidebar.set_streaming("chat-aaaa", True)
    assert index.data(StreamingRole) is True
    assert "reply streaming" in index.data(Qt.ItemDataRole.ToolTipRole)
    sidebar.set_streaming("chat-aaaa", False)
    assert index.data(StreamingRole) is False


def test_every_kind_of_row_paints(store: SqliteStore, make_sidebar: Make) -> None:
    add(store, "chat-aaaa", ago=10, title="A long title " * 5, tags=["a", "bb", "ccc", "dddd"])
    add(store, "chat-dead", ago=20, parent="chat-aaaa", status=STATUS_KILLED)
    add(store, "chat-bbbb", ago=30)
    sidebar = make_sidebar()
    sidebar.set_streaming("chat-bbbb", True)
    sidebar.set_current("chat-dead")
    image = sidebar.grab().toImage()
    assert not image.isNull() and image.width() == 300
    sidebar.search_box.setText("long title")
    sidebar._run_search()  # no need to wait for the debounce here
    assert sidebar.searching and not sidebar.grab().toImage().isNull()

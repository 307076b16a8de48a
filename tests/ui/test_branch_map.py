"""Issue 25 item 3: the Branches view is a map of the whole family — the root, every
fork and fork of a fork, the alternatives (edited versions, retried replies, compared
models) — each with its title, kind, where it branched, its state (open, closed, in
the Trash) and its last activity; a click or Enter opens one; each row says all of it
to a screen reader."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ikgui.domain.commands.branches import CLOSED, OPEN, ROOT, TRASHED, family_map
from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.events import BRANCH_COMPARE, BRANCH_EDIT, BRANCH_RETRY, Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings
from ikgui.storage import SqliteStore
from ikgui.ui.branches_view import ACTIVITY, KIND, POINT, STATE, TITLE, BranchesView, id_of
from ikgui.ui.sidebar.titles import own_words
from tests.ui.test_sidebar import db_path, store

__all__ = ["db_path", "store"]


async def _family(store: SqliteStore) -> dict[str, str]:
    session = Session(store, Settings(), registry=default_registry())
    session.append(Kind.USER, "Painting with oils")
    session.append(Kind.ASSISTANT, "Oils dry slowly")
    asked = session.append(Kind.USER, "And acrylics?")
    session.append(Kind.ASSISTANT, "They dry fast")
    ids = {"root": session.conversation.id}
    ids["edit"] = session.fork(asked.id - 1, reason=BRANCH_EDIT).id
    session.append(Kind.USER, "And gouache?")
    session.open(ids["root"])
    ids["retry"] = session.fork(asked.id, reason=BRANCH_RETRY).id
    session.open(ids["root"])
    ids["fork"] = session.fork().id
    session.append(Kind.USER, "Which brushes?")
    ids["deep"] = session.fork().id
    await session.execute("/kill")  # closes it, opens its parent
    session.open(ids["fork"])
    ids["trashed"] = session.fork().id
    session.trash(ids["trashed"])
    session.open(ids["root"])
    ids["compare"] = session.fork(reason=BRANCH_COMPARE).id
    return ids


async def test_the_map_holds_the_whole_family_with_kinds_states_and_activity(
    store: SqliteStore,
) -> None:
    ids = await _family(store)
    nodes = family_map(store, ids["deep"])  # asked from deep down: still the whole family
    assert [n.conversation.id for n in nodes] == [
        ids["root"],
        ids["edit"],
        ids["retry"],
        ids["fork"],
        ids["deep"],
        ids["trashed"],
        ids["compare"],
    ]
    assert [n.kind for n in nodes] == [ROOT, "edit", "retry", "fork", "fork", "fork", "compare"]
    assert [n.depth for n in nodes] == [0, 1, 1, 1, 2, 2, 1]
    states = {n.conversation.id: n.state for n in nodes}
    assert states[ids["deep"]] == CLOSED and states[ids["trashed"]] == TRASHED
    assert states[ids["root"]] == OPEN
    assert [n.current for n in nodes].count(True) == 1 and nodes[4].current
    assert nodes[0].fork_point == "" and nodes[1].fork_point == "Reply: Oils dry slowly"
    assert family_map(store, "nope") == []


async def test_the_view_maps_the_family_and_opens_by_click_or_enter(
    store: SqliteStore, qtbot: QtBot
) -> None:
    ids = await _family(store)
    now = store.get_conversation(ids["root"]).updated_at + 3 * 3600  # type: ignore[union-attr]
    view = BranchesView(store, ids["edit"], clock=lambda: now)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert view.ids()[0] == ids["root"] and len(view.ids()) == 7  # the Trash too
    this = view.tree.currentItem()
    assert id_of(this) == ids["edit"] and this is not None
    assert this.font(TITLE).bold()
    assert this.text(KIND) == "edited version" and this.text(STATE) == "open"
    assert this.text(POINT) == "Reply: Oils dry slowly"
    assert this.text(ACTIVITY)  # the date of its last event
    trashed = view.item_of(ids["trashed"])
    assert trashed is not None and trashed.text(STATE) == "in the Trash"
    assert trashed.parent() is view.item_of(ids["fork"])
    said = str(trashed.data(TITLE, Qt.ItemDataRole.AccessibleTextRole))
    assert "in the Trash" in said and "branch" in said and "last active 3h ago" in said
    compared = view.item_of(ids["compare"])
    assert compared is not None and compared.text(KIND) == "compared model"
    # under its parent a branch is named by what tells it apart, the full title said
    assert compared.text(TITLE) == "branch 4"
    assert "↳ Painting with oils · branch 4" in str(
        compared.data(TITLE, Qt.ItemDataRole.AccessibleTextRole)
    )
    assert view.item_of(ids["deep"]).text(TITLE) == "branch 3.1"  # type: ignore[union-attr]
    assert view.item_of(ids["root"]).text(TITLE) == "Painting with oils"  # type: ignore[union-attr]
    closed = view.item_of(ids["deep"])
    assert closed is not None and closed.text(STATE) == "closed"
    assert closed.foreground(TITLE).color() != this.foreground(TITLE).color()

    # the keyboard: down to the next row, Enter opens it
    view.tree.setFocus()
    qtbot.keyClick(view.tree, Qt.Key.Key_Down)
    assert id_of(view.tree.currentItem()) == ids["retry"]
    with qtbot.waitSignal(view.open_requested) as opened:
        qtbot.keyClick(view.tree, Qt.Key.Key_Return)
    assert opened.args == [ids["retry"]]
    assert not view.isVisible()

    # a click opens a conversation too
    again = BranchesView(store, ids["root"], clock=lambda: now)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    item = again.item_of(ids["compare"])
    assert item is not None
    place = again.tree.visualItemRect(item).center()
    with qtbot.waitSignal(again.open_requested) as clicked:
        qtbot.mouseClick(again.tree.viewport(), Qt.MouseButton.LeftButton, pos=place)
    assert clicked.args == [ids["compare"]]


def test_a_branch_is_named_by_its_own_part_when_the_rest_is_its_parents() -> None:
    root = "Write unit tests for date parsing"
    assert own_words("↳ Write unit tests for… · branch 3", root) == "branch 3"
    assert (
        own_words("↳ Write unit tests for… · branch 3.1", "↳ Write unit tests for… · branch 3")
        == "branch 3.1"
    )
    assert own_words(f"{root} · gpt-4o-mini", root) == "gpt-4o-mini"
    assert own_words("Fox · at dusk", root) is None  # a title of its own
    assert own_words("What about a heron?", root) is None
    assert own_words(f"{root} · x", None) is None

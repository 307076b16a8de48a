"""Branches in the window (issue 12 item 3), against the real model server: fork
notices name the parent by title and are links that open it; the Branches view lists
the parent, siblings and forks with where each branched, and opens one."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings
from ikgui.storage import SqliteStore
from ikgui.ui.branches_view import KIND, POINT, STATE, BranchesView, id_of
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.test_sidebar import db_path, store
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["closed_url", "db_path", "store", "window", "wire_server", "wire_server_session"]


async def _forked(window: MainWindow, wire_server: WireServer, qtbot: QtBot) -> str:
    wire_server.route("/v1/chat/completions", reply("Oils dry slowly"))
    await type_and_send(qtbot, window, "Painting with oils")
    await settle(window)
    parent = window.current_id
    window.toolbar_actions["actionFork"].trigger()
    await settle(window)
    return parent


async def test_a_fork_notice_names_the_parent_and_its_link_opens_it(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    parent = await _forked(window, wire_server, qtbot)
    child = window.current_id
    assert window.session.conversation.title == "↳ Painting with oils · branch 1"
    assert texts(window)[-1] == "Forked from “Painting with oils”  ·  Branches"
    anchors = window.scrollback.document().toHtml()
    assert f'href="ikgui-conv:{parent}"' in anchors
    assert f'href="ikgui-branches:{parent}"' in anchors
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-conv:{parent}"))
    await settle(window)
    assert window.current_id == parent
    # the parent's own notice names the fork by its title, and opens it
    assert texts(window)[-1] == "Forked child “↳ Painting with oils · branch 1”  ·  Branches"
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-conv:{child}"))
    await settle(window)
    assert window.current_id == child
    # an unknown scheme or a malformed id opens nothing
    window.scrollback.anchorClicked.emit(QUrl("ikgui-conv:../../etc"))
    await settle(window)
    assert window.current_id == child


async def test_the_branches_view_lists_the_family_and_opens_one(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    parent = await _forked(window, wire_server, qtbot)
    first = window.current_id
    wire_server.route("/v1/chat/completions", reply("Acrylics dry fast"))
    await type_and_send(qtbot, window, "What about acrylics?")
    await settle(window)
    window.toolbar_actions["actionFork"].trigger()
    await settle(window)
    grandchild = window.current_id
    window.open_conversation(parent)
    await settle(window)
    window.toolbar_actions["actionFork"].trigger()
    await settle(window)
    sibling = window.current_id
    window.open_conversation(first)
    await settle(window)

    window.toolbar_actions["actionBranches"].trigger()
    view = window.branches_view
    assert isinstance(view, BranchesView) and view.isVisible()
    assert view.ids() == [parent, first, grandchild, sibling]
    assert id_of(view.tree.topLevelItem(0)) == parent
    this = view.tree.currentItem()
    assert this is not None and id_of(this) == first
    assert this.text(POINT) == "Reply: Oils dry slowly"
    assert this.child(0).text(POINT) == "Reply: Acrylics dry fast"  # type: ignore[union-attr]
    # the sibling is opened from the view
    parent_item = view.tree.topLevelItem(0)
    assert parent_item is not None
    sibling_item = parent_item.child(1)
    assert sibling_item is not None and id_of(sibling_item) == sibling
    view.tree.setCurrentItem(sibling_item)
    view.open_button.click()
    await settle(window)
    assert window.current_id == sibling
    assert not view.isVisible()

    # a fork notice's Branches link opens the view of the conversation it names
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-branches:{parent}"))
    view = window.branches_view
    assert view.ids()[0] == parent and id_of(view.tree.currentItem()) == parent
    view.close()


async def test_notices_redrawn_after_shutdown_do_not_raise(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    """A theme change after the window shut down (its store closed) redraws the fork
    notices: their titles are then unknown, never a traceback."""
    from PySide6.QtWidgets import QApplication

    from ikgui.ui.style import apply_style
    from tests.ui.test_window import opened, write_config

    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    wire_server.route("/v1/chat/completions", reply("first"))
    await type_and_send(qtbot, win, "hello")
    await settle(win)
    win.toolbar_actions["actionFork"].trigger()
    await settle(win)
    assert any(t.startswith("Forked from “") for t in texts(win))
    await win.shutdown()
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        apply_style(app, "dark")  # redraws the transcript: titles read from a closed store
        assert any(t.startswith("Forked from ") for t in texts(win))
    finally:
        apply_style(app, "light")
        win.close()
        win.deleteLater()


async def test_the_branches_view_shows_the_whole_subtree_plain_fork_points_and_closed(
    store: SqliteStore, qtbot: QtBot
) -> None:
    """Issue 20 item 11: "Branched at" printed ``\\x0a\\x0a`` and raw Markdown, closed
    branches were not marked and grandchildren were left out."""
    session = Session(store, Settings(), registry=default_registry())
    session.append(Kind.USER, "Painting with oils")
    session.append(Kind.ASSISTANT, "## Oils\n\nThey **dry slowly**, see [this](https://x.y).")
    root = session.conversation.id
    first = session.fork().id
    session.append(Kind.USER, "What about `acrylics`?")
    grandchild = session.fork().id
    session.append(Kind.USER, "And gouache?")
    great = session.fork().id
    await session.execute("/kill")  # closes it (and opens its parent, the grandchild)
    session.open(root)
    sibling = session.fork().id

    view = BranchesView(store, first)
    qtbot.addWidget(view)
    view.show()
    assert view.ids() == [root, first, grandchild, great, sibling]
    this = view.tree.currentItem()
    assert this is not None and id_of(this) == first
    assert this.text(POINT) == "Reply: Oils They dry slowly, see this."
    child = this.child(0)
    assert child is not None and id_of(child) == grandchild
    assert child.text(POINT) == "You: What about acrylics?"
    deeper = child.child(0)
    assert deeper is not None and id_of(deeper) == great
    assert deeper.text(STATE) == "closed" and deeper.text(KIND) == "branch"
    for item in (this, child, deeper):
        point = item.text(POINT)
        assert "\\x0a" not in point and "**" not in point and "#" not in point
    assert deeper.foreground(0).color() != this.foreground(0).color()  # dimmed
    view.close()

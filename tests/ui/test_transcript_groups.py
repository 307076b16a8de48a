"""Nothing disappears (issue 10, item 1) and Retry replaces a failed attempt (item 2), on
the real window against the real local model server: a rewind or a clear leaves a
collapsed, dimmed group where the items were, which expands in place (by mouse or
keyboard); a search hit on such an item shows it; Retry of a failed reply leaves one
user message in ``ikgui conv context``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor, QTextFrameFormat
from PySide6.QtWidgets import QLineEdit, QListView
from pytestqt.qtbot import QtBot

from ikgui.ui.sidebar.rows import DetailRole, EventIdRole
from ikgui.ui.transcript.groups import GROUP_SCHEME, OUT_OF_CONTEXT
from ikgui.ui.transcript.scrollback import ScrollbackView
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]


def link_cursor(view: ScrollbackView, key: int) -> QTextCursor:
    """A cursor on the Show/Hide link of the group ``key``."""
    href = f"{GROUP_SCHEME}:{key}"
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position() + 1)
                return cursor
            it += 1
        block = block.next()
    raise AssertionError(f"no link {href}")


def click_group(qtbot: QtBot, view: ScrollbackView, key: int) -> None:
    cursor = link_cursor(view, key)
    view.ensureCursorVisible()
    view.setTextCursor(cursor)
    view.ensureCursorVisible()
    point = view.cursorRect(cursor).center() + QPoint(2, 0)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def group_keys(win: MainWindow) -> list[int]:
    return [-row.id for row in win.scrollback._held if row.kind == "group"]


def in_view(view: ScrollbackView, event_id: int) -> bool:
    frame = view.item_frame(event_id)
    assert frame is not None
    top = view.document().documentLayout().frameBoundingRect(frame).top()
    offset = top - view.verticalScrollBar().value()
    return 0 <= offset < view.viewport().height()


def dimmed(view: ScrollbackView, event_id: int) -> bool:
    frame = view.item_frame(event_id)
    assert frame is not None
    label = frame.firstCursorPosition().block().text()
    style = frame.frameFormat().borderStyle()
    return OUT_OF_CONTEXT in label and style == QTextFrameFormat.BorderStyle.BorderStyle_Dashed


async def run(win: MainWindow, name: str, **arguments: object) -> None:
    """A command as the toolbar runs it (with values)."""
    await win.runner.run(name, **arguments)
    await settle(win)


async def chat(qtbot: QtBot, win: MainWindow, server: WireServer, text: str, answer: str) -> None:
    server.route("/v1/chat/completions", reply(answer))
    await type_and_send(qtbot, win, text)
    await settle(win)


async def test_a_rewind_leaves_a_group_that_expands_in_place_dimmed(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await chat(qtbot, window, wire_server, "one", "first answer")
    await run(window, "mark", label="here")
    await chat(qtbot, window, wire_server, "two", "second answer")
    view = window.scrollback
    before = view.document().rootFrame().childFrames()[0]
    await run(window, "rewind")
    assert texts(window)[-3:] == ["⚑ here", "2 items rewound · Show", "Rewound to here"]
    assert view.document().rootFrame().childFrames()[0] is before  # updated in place
    assert "second answer" not in texts(window)
    (key,) = group_keys(window)
    click_group(qtbot, view, key)
    shown = texts(window)
    assert shown[-5:] == [
        "⚑ here",
        f"2 items rewound · {OUT_OF_CONTEXT} · Hide",
        "two",
        "second answer",
        "Rewound to here",
    ]
    rewound = [e.id for e in window.session.store.events(window.current_id)][-3:-1]
    assert all(dimmed(view, event_id) for event_id in rewound)
    first_answer = window.session.state.context[-1]
    assert not dimmed(view, first_answer.id)
    # the context is as before: the rewound exchange is not sent
    assert [m["content"] for m in window.session.context()][-2:] == ["one", "first answer"]
    # keyboard: Tab reaches the link, Enter hides the group again
    view.setFocus()
    view.setTextCursor(QTextCursor(view.document()))
    for _ in range(6):
        qtbot.keyClick(view, Qt.Key.Key_Tab)
        if view.textCursor().charFormat().anchorHref().startswith(GROUP_SCHEME):
            break
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert texts(window)[-3:] == ["⚑ here", "2 items rewound · Show", "Rewound to here"]


async def test_a_clear_leaves_earlier_items_collapsed_and_readable(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await chat(qtbot, window, wire_server, "alpha", "beta")
    await chat(qtbot, window, wire_server, "gamma", "delta")
    await run(window, "clear")
    assert texts(window) == ["Context cleared · 4 earlier items · Show"]
    conv = window.current_id
    # after opening it again (replay starts at the clear): the same group, counted
    await run(window, "new")
    window.open_conversation(conv)
    assert texts(window) == ["Context cleared · 4 earlier items · Show"]
    (key,) = group_keys(window)
    click_group(qtbot, window.scrollback, key)
    assert texts(window) == [
        f"Context cleared · 4 earlier items · {OUT_OF_CONTEXT} · Hide",
        "alpha",
        "beta",
        "gamma",
        "delta",
    ]
    assert window.session.context() == [{"role": "system", "content": "You draft image prompts."}]


async def test_a_search_hit_on_a_rewound_or_cleared_message_shows_it(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await chat(qtbot, window, wire_server, "kept question", "kept answer")
    await run(window, "mark", label="m")
    await chat(qtbot, window, wire_server, "zanzibar question", "rewound answer")
    await run(window, "rewind")
    for i in range(60):  # a long tail: the hit is far above the end
        await run(window, "mark", label=f"filler {i}")
    conv = window.current_id
    await run(window, "new")
    hit = await search_and_open(qtbot, window, "zanzibar")
    view = window.scrollback
    assert window.current_id == conv
    assert view.item_frame(hit) is not None and in_view(view, hit)
    assert dimmed(view, hit)
    assert view.textCursor().selectedText() == "zanzibar question"
    # the same for a message before a clear
    await run(window, "clear")
    await run(window, "new")
    hit = await search_and_open(qtbot, window, "kept question")
    assert window.current_id == conv
    assert in_view(view, hit) and dimmed(view, hit)


async def search_and_open(qtbot: QtBot, win: MainWindow, words: str) -> int:
    """Search in the sidebar and click the (one) hit; returns the hit's event id."""
    search = win.sidebar.findChild(QLineEdit, "conversationSearch")
    listing = win.sidebar.findChild(QListView, "conversationList")
    search.clear()
    qtbot.keyClicks(search, words)
    await wait_until(
        lambda: (
            listing.model().rowCount() == 1
            and isinstance(listing.model().index(0, 0).data(EventIdRole), int)
        )
    )
    index = listing.model().index(0, 0)
    qtbot.mouseClick(
        listing.viewport(), Qt.MouseButton.LeftButton, pos=listing.visualRect(index).center()
    )
    await settle(win)
    return int(listing.model().index(0, 0).data(EventIdRole))


def conv_context(home: Path, conv_id: str) -> list[dict[str, str]]:
    """``ikgui conv context ID --json``, run as its own process on the window's database."""
    env = dict(os.environ, IKGUI_HOME=str(home))
    done = subprocess.run(
        [sys.executable, "-m", "ikgui", "conv", "context", conv_id, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    messages: list[dict[str, str]] = json.loads(done.stdout)["messages"]
    return messages


@pytest.mark.parametrize("fault", ["cut", "500"])
async def test_retry_of_a_failed_reply_leaves_one_user_message_in_the_context(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, tmp_path: Path, fault: str
) -> None:
    broken = (
        reply("half of an ans", "wer that never ends").but(fault="cut", fault_after=150)
        if fault == "cut"
        else Reply.error(500, "boom")
    )
    wire_server.route("/v1/chat/completions", broken)
    await type_and_send(qtbot, window, "the question")
    await settle(window)
    error = window.session.state.scrollback[-1]
    assert error.kind == "error"
    wire_server.route("/v1/chat/completions", reply("the good answer"))
    window.scrollback.retry_requested.emit(error.id)
    await settle(window)
    assert texts(window)[-3:] == [
        "the question",
        f"Failed attempt · {2 if fault == 'cut' else 1} item{'s' if fault == 'cut' else ''} · Show",
        "the good answer",
    ]
    sent = wire_server.requests[-1].json()["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"] == ["the question"]
    context = conv_context(tmp_path / "home", window.current_id)
    assert [(m["role"], m["content"]) for m in context] == [
        ("system", "You draft image prompts."),
        ("user", "the question"),
        ("assistant", "the good answer"),
    ]


async def test_the_sidebar_says_how_many_messages_are_in_the_context(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await chat(qtbot, window, wire_server, "one", "first answer")
    await run(window, "mark", label="here")
    await chat(qtbot, window, wire_server, "two", "second answer")
    model = window.sidebar.model
    row = model.index_of(window.current_id)
    await wait_until(lambda: " 4 messages · " in f" {row.data(DetailRole)}")
    assert "4 messages, all in the model's context" in str(row.data(Qt.ItemDataRole.ToolTipRole))
    await run(window, "rewind")
    row = model.index_of(window.current_id)
    await wait_until(lambda: " 4 messages · 2 in context · " in f" {row.data(DetailRole)}")
    assert "4 messages, 2 of them in the model's context" in str(
        row.data(Qt.ItemDataRole.ToolTipRole)
    )
    assert "rewound, cleared or replaced by Retry" in str(
        row.data(Qt.ItemDataRole.AccessibleTextRole)
    )
    await run(window, "clear")
    row = model.index_of(window.current_id)
    await wait_until(lambda: " 4 messages · 0 in context · " in f" {row.data(DetailRole)}")


async def test_expanding_a_group_at_the_bottom_adds_only_its_items(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    """Expanding while the view follows the bottom must not load the last items twice
    (the held rows grew before the loaded ones did)."""
    long = " ".join(["a long answer that fills the view"] * 60)
    await chat(qtbot, window, wire_server, "one", long)
    await run(window, "mark", label="here")
    await chat(qtbot, window, wire_server, "two", long)
    await run(window, "rewind")
    await chat(qtbot, window, wire_server, "three", "third answer")
    view = window.scrollback
    view.scroll_to_bottom()
    assert view.verticalScrollBar().maximum() > 0  # (it scrolls: it follows the bottom)
    before = texts(window)
    (key,) = group_keys(window)
    view.expand_group(key)
    after = texts(window)
    assert len(after) == len(before) + 2 and len(view._items) == len(view._held)
    assert after[-2:] == ["three", "third answer"] and after.count("third answer") == 1

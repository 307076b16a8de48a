"""Untrusted text in the window's widgets (issue 8, items 1 and 3): a conversation full of
hostile strings — a title, a mark label, a model name, server errors, a fork, an invalid
tag, a search — is shown literally everywhere outside the transcript body: no label reads
it as HTML, no tooltip carries it unescaped, and bidi overrides are visible.

The markers are harmless (a file that does not exist, ``<b>``): a real
``file:///dev/zero`` would make Qt read forever on the old code.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest_asyncio
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QHelpEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QLabel,
    QToolTip,
    QWidget,
)
from pytestqt.qtbot import QtBot

from ikgui.ui.plain import action_text, error_box, tooltip
from ikgui.ui.sidebar.rows import SnippetRole, TitleRole
from ikgui.ui.sidebar.tree import ConversationTree
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.sidebar_rows import row_ids
from tests.support.wire_server import Reply, WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, quiet, reply, write_config

__all__ = ["wire_server", "wire_server_session"]

IMG = '<img src="file:///nonexistent/ikgui-probe.png">'
BOLD = "<b>bold</b>"
AMP = "&amp;"
RLO = "\u202e"
#: What must never reach a widget as markup (and, for RLO, never raw).
MARKERS = (IMG, BOLD, AMP, "<img")
SHOWN_RLO = "⟨U+202E⟩"
TITLE = f"invoice{RLO}gpj.exe {IMG} {BOLD} {AMP} [*]"
MODEL = f"{BOLD}{AMP}{RLO}-gpt"
MARK = f"a&b {IMG} {RLO}x"


def html_error(status: int, text: str) -> Reply:
    """A proxy's error page: a short text/html body the provider quotes."""
    return Reply(
        status=status, body=text.encode(), headers=(("content-type", "text/html"),), chunked=False
    )


@pytest_asyncio.fixture(loop_scope="session")
async def hostile(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> AsyncIterator[MainWindow]:
    """A window whose conversation went through every hostile string it can carry."""
    wire_server.models = ["tiny", "mock-gpt", MODEL]
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    wire_server.route("/v1/chat/completions", reply(f"Sure {IMG} {BOLD} {AMP} {RLO}txt.exe"))
    await win.run_line(f"draw {IMG} {BOLD} {AMP} {RLO}cat")  # the automatic title
    await quiet(win)
    win.session.rename(win.current_id, TITLE)
    win.sidebar.refresh_conversation(win.current_id)
    await win.run_line(f"/model {MODEL}")
    await win.run_line(f"/mark {MARK}")
    await win.run_line("/mark")
    wire_server.route("/v1/chat/completions", Reply.error(500, f"upstream {IMG} {BOLD} {AMP}"))
    await win.run_line("again")
    await quiet(win)
    await win.run_line("/fork")  # a second row, a status-bar message naming the switch
    await quiet(win)
    win.session.rename(win.current_id, TITLE)  # (a fork's own title is "↳ invoice… · branch 1")
    win.sidebar.refresh_conversation(win.current_id)
    wire_server.route("/v1/chat/completions", html_error(502, f"Bad gateway {IMG} {BOLD} {RLO}"))
    await win.run_line("and again")
    await quiet(win)
    # The error card says a failure (issue 10, item 7); the line under the prompt says
    # what a command refused, quoting what was typed.
    await win.run_line(f'/model "nope {IMG} {BOLD} {RLO}"')
    await quiet(win)
    await wait_until(lambda: "nope" in win.feedback.text())
    yield win
    wire_server.models = ["tiny", "mock-gpt"]
    await closed(win)


def _outside_transcript(win: MainWindow) -> Iterator[QWidget]:
    """Every widget of the application but the transcript body (another item's)."""
    transcript = {win.scrollback, *win.scrollback.findChildren(QWidget)}
    for top in QApplication.topLevelWidgets():
        for widget in (top, *top.findChildren(QWidget)):
            if widget not in transcript:
                yield widget


def _texts(widget: QWidget) -> list[tuple[str, str]]:
    """(where, text) of what ``widget`` shows as widget text (not editable content)."""
    found = [(f"{type(widget).__name__} title", widget.windowTitle())]
    if isinstance(widget, QLabel | QAbstractButton):
        found.append((f"{type(widget).__name__} {widget.objectName()}", widget.text()))
    if isinstance(widget, QComboBox):
        name = widget.objectName()
        found += [(f"combo {name}", widget.itemText(i)) for i in range(widget.count())]
    return found


def _problems(win: MainWindow) -> list[str]:
    problems = []
    for widget in _outside_transcript(win):
        rich = isinstance(widget, QLabel) and widget.textFormat() != Qt.TextFormat.PlainText
        if rich and any(m in widget.text() for m in MARKERS):
            problems.append(f"rich label {widget.objectName()!r}: {widget.text()!r}")
        tip = widget.toolTip()
        if "<img" in tip or BOLD in tip:
            problems.append(f"tooltip of {type(widget).__name__}: {tip!r}")
        for where, text in _texts(widget):
            if RLO in text:
                problems.append(f"raw U+202E in {where}: {text!r}")
    for action in win.findChildren(QAction):
        if RLO in action.text() or "<img" in action.toolTip():
            problems.append(f"action {action.objectName()!r}: {action.text()!r}")
    return problems


async def test_hostile_strings_are_shown_as_plain_text_everywhere(
    hostile: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    win = hostile
    # The line under the prompt: the quoted words, literally.
    assert win.feedback.textFormat() == Qt.TextFormat.PlainText
    assert IMG in win.feedback.text() and BOLD in win.feedback.text()
    assert SHOWN_RLO in win.feedback.text()
    # The status bar: the model name on plain text, bidi visible.
    assert win.status_model.textFormat() == Qt.TextFormat.PlainText
    assert BOLD in win.status_model.text() and SHOWN_RLO in win.status_model.text()
    assert RLO not in win.statusBar().currentMessage()
    # The model selector shows the name safely and still sends the exact one.
    selector = win.toolbar_actions.model_selector
    assert selector.currentText() == f"{BOLD}{AMP}{SHOWN_RLO}-gpt"
    assert win.toolbar_actions.current_model() == MODEL

    # Dialogs: the tag editor (its heading and an error quoting what was typed), the
    # context, Settings with a Test connection the server answers with an error.
    win.sidebar.edit_tags(win.current_id)
    editor = win.sidebar.tag_editor
    assert editor is not None
    editor.line.setText(f"{BOLD} {IMG}")
    assert BOLD in editor.message.text()
    heading = editor.findChild(QLabel, "tagHeading")
    assert heading is not None and SHOWN_RLO in heading.text()
    win.show_context()
    wire_server.route("/v1/models", Reply.error(500, f"denied {IMG} {BOLD} {RLO}"), method="GET")
    settings = win.open_settings("providers")
    settings.providers_page.test_button.click()
    result = settings.providers_page.test_result
    await wait_until(lambda: "denied" in result.text())
    assert IMG in result.text() and SHOWN_RLO in result.text()
    # A search whose snippet and placeholder quote the hostile words.
    win.sidebar.search_box.setText("draw")
    win.sidebar._run_search()
    hit = win.sidebar.search_model.index(0, 0)
    assert SHOWN_RLO in hit.data(SnippetRole) and RLO not in hit.data(SnippetRole)
    assert "&lt;img" in hit.data(Qt.ItemDataRole.ToolTipRole)
    assert "<img" not in hit.data(Qt.ItemDataRole.ToolTipRole)

    try:
        win.grab().save("/tmp/ikgui-hostile-window.png")
        settings.grab().save("/tmp/ikgui-hostile-settings.png")
        assert _problems(win) == []
    finally:
        editor.reject()
        settings.reject()
        win.context_dialog.close()
        win.sidebar.search_box.clear()
        await quiet(win)


def loaded_ids(model: ConversationTree) -> list[str]:
    """Every conversation loaded so far, depth first (each row expanded, so that its forks
    have rows of their own)."""
    model.expand_all()
    return row_ids(model)


async def test_sidebar_rows_window_title_and_tooltip_reveal_bidi_and_escape_html(
    hostile: MainWindow,
) -> None:
    win = hostile
    model = win.sidebar.model
    titles = {}
    for conv_id in loaded_ids(model):
        index = model.index_of(conv_id)
        titles[conv_id] = index.data(Qt.ItemDataRole.DisplayRole)
        tip = index.data(Qt.ItemDataRole.ToolTipRole)
        assert "<img" not in tip and "&lt;img" in tip and SHOWN_RLO in tip, tip
        assert RLO not in index.data(TitleRole)
    assert all(SHOWN_RLO in t and IMG in t for t in titles.values()), titles
    assert SHOWN_RLO in win.windowTitle() and RLO not in win.windowTitle()
    handle = win.windowHandle()
    assert handle is not None and "&amp; [*] — ikgui" in handle.title()  # not a placeholder

    # Hovering the row shows the tooltip; Qt reads it as HTML, so it must be escaped.
    view = win.sidebar.view
    index = model.index_of(win.current_id)
    at = view.visualRect(index).center()
    event = QHelpEvent(QEvent.Type.ToolTip, at, view.viewport().mapToGlobal(at))
    QApplication.sendEvent(view.viewport(), event)
    try:
        assert QToolTip.isVisible()
        assert "<img" not in QToolTip.text() and "&lt;img" in QToolTip.text()
    finally:
        QToolTip.hideText()


async def test_the_rewind_menu_shows_mark_labels_literally(hostile: MainWindow) -> None:
    parent = hostile.session.conversation.parent
    assert parent is not None
    hostile.open_conversation(parent)  # the marks were set before the fork
    await quiet(hostile)
    menu = hostile.toolbar_actions.rewind_menu
    assert _problems(hostile) == []
    texts = [a.text() for a in menu.actions()]
    assert f"a&&b {IMG} {SHOWN_RLO}x" in texts, texts  # "&&" is shown as one "&"
    labelled = next(a for a in menu.actions() if IMG in a.text())
    assert "<img" not in labelled.toolTip() and "&lt;img" in labelled.toolTip()


def test_the_helpers_leave_no_markup_and_no_mnemonic(qtbot: QtBot) -> None:
    assert action_text("Save & quit") == "Save && quit"
    assert tooltip(f"{IMG}\n{RLO}") == (
        "<p style='white-space:pre-wrap'>&lt;img src=\"file:///nonexistent/ikgui-probe.png\"&gt;"
        f"<br>{SHOWN_RLO}</p>"
    )
    box = error_box(None, "ikgui cannot start", f"config.toml: {BOLD}")
    qtbot.addWidget(box)
    assert box.textFormat() == Qt.TextFormat.PlainText and BOLD in box.text()

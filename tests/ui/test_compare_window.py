"""Models compared side by side in the real window (SPEC §14), against a real HTTP server
on 127.0.0.1 and a real SQLite file: ``/compare`` and the toolbar's Compare choose the
models, the next message streams to each at once into the columns of ``compareView``,
and "Continue with this one" opens that answer's branch."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QListWidget
from pytestqt.qtbot import QtBot

from ikgui.domain.events import BRANCH_COMPARE
from ikgui.storage import open_store
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import ReceivedRequest, Reply, WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_alternatives_window import one_switcher, switchers
from tests.ui.test_window import (
    closed,
    opened,
    reply,
    settle,
    texts,
    type_and_send,
    window,
    write_config,
)

__all__ = ["window", "wire_server", "wire_server_session"]


def by_model(request: ReceivedRequest) -> Reply:
    """Each model streams its own words, slowly enough to be seen side by side; a model
    called ``tiny`` is down."""
    model = request.json()["model"]
    if model == "tiny":
        return Reply.error(503, "tiny is down for maintenance")
    return reply(*[f"{model}-{i} " for i in range(40)], pause=0.01)


async def test_compare_streams_side_by_side_and_continue_opens_that_branch(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("Hello!"))
    await type_and_send(qtbot, window, "hi")
    await settle(window)
    parent = window.current_id
    wire_server.models = ["mock-gpt", "other-gpt", "tiny"]
    await window.model_lists.ask_all()
    wire_server.route("/v1/chat/completions", by_model)
    await type_and_send(qtbot, window, "/compare mock-gpt other-gpt")
    await wait_until(lambda: "goes to" in window.feedback.text())
    assert window.feedback.text() == "The next message goes to: local/mock-gpt, local/other-gpt"
    await type_and_send(qtbot, window, "which is best?")
    view = window.pane.compare_view
    await wait_until(lambda: window.centre_stack.currentWidget() is view)
    assert view.objectName() == "compareView" and len(view.columns) == 2
    # both stream at once: each column has text before either has ended
    await wait_until(lambda: all(c.text.toPlainText() for c in view.columns))
    assert any(c.answer.finished is None for c in view.columns)
    await settle(window)
    await wait_until(lambda: all(c.rendered for c in view.columns))  # each shown whole
    first, second = view.columns
    assert first.text.toPlainText().strip().startswith("mock-gpt-0 mock-gpt-1")
    assert second.text.toPlainText().strip().endswith("other-gpt-39")
    for column in view.columns:
        stats = column.stats.text()
        assert "s to first token" in stats and "7 tokens" in stats and "tokens/s" in stats
        assert column.keep.isEnabled() and column.keep.text() == "Continue with this one"
    # the conversation on screen stayed the parent, untouched
    assert window.current_id == parent
    shown = texts(window)
    assert shown[:2] == ["hi", "Hello!"] and "which is best?" not in shown
    assert [m["content"] for m in window.session.context()[-2:]] == ["hi", "Hello!"]
    kids = window.store.children(parent)
    assert [k.branch_reason for k in kids] == [BRANCH_COMPARE, BRANCH_COMPARE]
    assert [k.title for k in kids] == ["hi · mock-gpt", "hi · other-gpt"]
    # the keyboard reaches it: Tab from an answer goes on to its "Continue with this one"
    window.activateWindow()  # (offscreen, the slash completion's list kept it)
    await wait_until(window.isActiveWindow)
    second.text.setFocus(Qt.FocusReason.TabFocusReason)
    await wait_until(lambda: second.text.hasFocus())
    qtbot.keyClick(second.text, Qt.Key.Key_Tab)
    await wait_until(lambda: second.keep.hasFocus())
    assert second.keep.accessibleName() == "Continue with local/other-gpt"
    qtbot.mouseClick(second.keep, Qt.MouseButton.LeftButton)
    await wait_until(lambda: window.current_id == second.answer.branch_id)
    await settle(window)
    assert window.centre_stack.currentWidget() is window.scrollback
    shown = texts(window)
    assert shown[-2] == "which is best?" and shown[-1].startswith("other-gpt-0 ")
    assert window.session.model == "other-gpt"
    # the other answer stays its alternative: ‹ 2/2 › flips to it, in place
    switcher = await one_switcher(window)
    assert switcher.accessibleName() == "Alternative 2 of 2"
    qtbot.mouseClick(switcher.previous, Qt.MouseButton.LeftButton)
    await wait_until(lambda: window.current_id == first.answer.branch_id)
    await settle(window)
    assert texts(window)[-1].startswith("mock-gpt-0 ")
    await wait_until(
        lambda: [w.accessibleName() for w in switchers(window)] == ["Alternative 1 of 2"]
    )


async def test_one_model_failing_leaves_the_others_answering(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.models = ["mock-gpt", "tiny"]
    await window.model_lists.ask_all()
    wire_server.route("/v1/chat/completions", by_model)
    await type_and_send(qtbot, window, "/compare tiny mock-gpt")
    await wait_until(lambda: window.session.compare_next is not None)
    await type_and_send(qtbot, window, "go")
    view = window.pane.compare_view
    await wait_until(lambda: len(view.columns) == 2)
    await settle(window)
    await wait_until(lambda: all(c.rendered for c in view.columns))
    broken, working = view.columns
    assert broken.error.isVisible() and "tiny is down" in broken.error.text()
    assert broken.stats.text() == "Failed"
    assert working.text.toPlainText().strip().endswith("mock-gpt-39")
    # Back to the conversation, and a plain message goes as usual again
    qtbot.mouseClick(view.back, Qt.MouseButton.LeftButton)
    assert window.centre_stack.currentWidget() is window.scrollback
    assert window.session.compare_next is None


async def test_the_toolbar_compare_picks_models_across_providers(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.models = ["mock-gpt", "other-gpt"]
    await window.model_lists.ask_all()
    action = window.toolbar_actions["actionCompare"]
    assert action.isEnabled()
    action.trigger()
    dialog = window.findChild(QDialog, "compareDialog")
    assert dialog is not None and dialog.isVisible()
    models = dialog.findChild(QListWidget, "compareModels")
    ok = dialog.buttons.buttons()[0]
    labels = [models.item(r).text() for r in range(models.count())]
    assert "local" in labels and "other-gpt" in labels
    assert not dialog.findChild(type(ok), "compareOk").isEnabled()  # one model checked
    for row in range(models.count()):
        if models.item(row).text() == "other-gpt":
            models.item(row).setCheckState(Qt.CheckState.Checked)
    button = dialog.findChild(type(ok), "compareOk")
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: window.session.compare_next is not None)
    await settle(window)
    assert [c.label for c in window.session.compare_next or []] == [
        "local/mock-gpt",
        "local/other-gpt",
    ]
    assert "goes to: local/mock-gpt, local/other-gpt" in window.feedback.text()
    # chosen for the conversation it was chosen in: another one sends as usual
    window.toolbar_actions["actionNew"].trigger()
    await settle(window)
    assert window.session.compare_next is None


async def test_stop_stops_every_answer_and_keeps_what_arrived(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.models = ["mock-gpt", "other-gpt"]
    await window.model_lists.ask_all()

    def endless(request: ReceivedRequest) -> Reply:
        model = request.json()["model"]
        return reply(*[f"{model}-{i} " for i in range(2000)], pause=0.02)

    wire_server.route("/v1/chat/completions", endless)
    await type_and_send(qtbot, window, "/compare mock-gpt other-gpt")
    await wait_until(lambda: window.session.compare_next is not None)
    await type_and_send(qtbot, window, "count")
    view = window.pane.compare_view
    await wait_until(lambda: len(view.columns) == 2)
    await wait_until(lambda: all(c.answer.deltas > 3 for c in view.columns))
    assert window.stop_button.isVisible()  # the conversation compared from is busy
    qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    await settle(window)
    await wait_until(lambda: all(c.rendered for c in view.columns))
    for column in view.columns:
        assert column.answer.stopped and "stopped" in column.stats.text()
        kept = window.store.events(column.answer.branch_id)[-1]
        assert (kept.data["interrupted"] is True and kept.content.startswith("mock-gpt-0 ")) or (
            kept.content.startswith("other-gpt-0 ")
        )
        assert column.keep.isEnabled()
    assert not window.session.streaming and window.send_button.isVisible()


async def test_closing_the_window_mid_comparison_keeps_what_arrived(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.models = ["mock-gpt", "other-gpt"]

    def endless(request: ReceivedRequest) -> Reply:
        model = request.json()["model"]
        return reply(*[f"{model}-{i} " for i in range(2000)], pause=0.02)

    wire_server.route("/v1/chat/completions", endless)
    win = await opened(home)
    try:
        await win.model_lists.ask_all()
        await type_and_send(qtbot, win, "/compare mock-gpt other-gpt")
        await wait_until(lambda: win.session.compare_next is not None)
        await type_and_send(qtbot, win, "count")
        view = win.pane.compare_view
        await wait_until(lambda: len(view.columns) == 2)
        await wait_until(lambda: all(c.answer.deltas > 3 for c in view.columns))
        branches = [c.answer.branch_id for c in view.columns]
    finally:
        await closed(win)
    with open_store(home / "ikgui.db") as store:
        for branch in branches:
            kept = store.events(branch)[-1]
            assert kept.kind == "assistant" and kept.data["interrupted"] is True
            assert kept.content and not kept.data.get("streaming")

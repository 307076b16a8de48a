"""The window by keyboard alone (issue 13, item 1), against the real model server: Tab
walks every control and comes back, F6 cycles the panes, a message of the transcript
takes the keyboard (its ring, its actions menu: Copy, Fork from here), Ctrl+Shift+M
reaches the model selector, Ctrl+/ lists the registry's shortcuts."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication, QLineEdit, QMenu, QWidget
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.ui.window.actions import toolbar_specs
from ikgui.ui.window.main_window import MainWindow
from ikgui.ui.window.shortcuts_dialog import ShortcutsDialog
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["closed_url", "window", "wire_server", "wire_server_session"]


def focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None
    return widget


def press(qtbot: QtBot, key: Qt.Key, mods: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(focused(), key, mods)


async def two_exchanges(window: MainWindow, wire_server: WireServer, qtbot: QtBot) -> list[int]:
    """One → first answer, two → second answer; the ids of the four messages."""
    for question, answer in (("one", "first answer"), ("two", "second answer")):
        wire_server.route("/v1/chat/completions", reply(answer))
        await type_and_send(qtbot, window, question)
        await settle(window)
    state = window.session.state.scrollback
    return [e.id for e in state if e.kind in (Kind.USER, Kind.ASSISTANT)]


async def with_models(window: MainWindow, wire_server: WireServer) -> None:
    models = {"data": [{"id": "mock-gpt"}, {"id": "other-model"}]}
    wire_server.route("/v1/models", Reply.json(models), method="GET")
    await window.check_models()
    assert window.toolbar_actions.model_selector.isEnabled()


def name_of(widget: QWidget) -> str:
    return widget.objectName() or widget.accessibleName() or type(widget).__name__


def walk(qtbot: QtBot, key: Qt.Key, mods: Qt.KeyboardModifier, start: QWidget) -> list[QWidget]:
    """Press ``key`` until the focus is back on ``start``: every widget on the way.
    Fails if a press leaves the focus where it was (a trap) or it never comes back."""
    seen = [start]
    for _ in range(120):
        before = focused()
        press(qtbot, key, mods)
        after = focused()
        assert after is not before, f"{name_of(before)} keeps the focus (a keyboard trap)"
        if after is start:
            return seen
        seen.append(after)
    raise AssertionError("Tab never came back: " + " → ".join(name_of(w) for w in seen))


async def test_tab_walks_every_control_and_back_without_a_trap(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await two_exchanges(window, wire_server, qtbot)
    await with_models(window, wire_server)
    window.ask_text = lambda *a: a[-1]("start")  # type: ignore[method-assign]
    window.toolbar_actions["actionMark"].trigger()  # Rewind can act now
    await settle(window)
    window.resize(1400, 900)  # (the toolbar's overflow at small sizes is item 3's)
    window.activateWindow()
    start = window.sidebar.search_box
    start.setFocus()
    forward = walk(qtbot, Qt.Key.Key_Tab, Qt.KeyboardModifier.NoModifier, start)
    names = [name_of(w) for w in forward]
    toolbar = window.toolbar_actions
    for spec in toolbar_specs(window.session):
        button = toolbar.toolbar.widgetForAction(toolbar[spec.name])
        if button is not None and button.isEnabled() and button.isVisible():  # (not in overflow)
            assert button in forward, spec.name
    for wanted in (
        "conversationSearch",
        "conversationList",
        "scrollback",
        "promptEditor",
        "sendButton",
        "workingPromptEditor",
        "showContextButton",
        "modelSelector",
    ):
        assert wanted in names, f"{wanted} is not reached by Tab: {names}"
    # every control that takes Tab focus and is shown is on the way
    for widget in window.findChildren(QWidget):
        takes_tab = widget.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus
        shown = widget.isVisible() and widget.isEnabled() and widget.window() is window
        own = widget.focusProxy() is None and not window.scrollback.isAncestorOf(widget)
        if takes_tab and shown and own:
            assert widget in forward, f"{name_of(widget)} is never reached by Tab"
    backward = walk(qtbot, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier, start)
    assert set(backward) >= set(forward) - {w for w in forward if not w.isVisible()}
    for widget in forward:  # every control Tab reaches speaks a name meant for people
        spoken = widget.accessibleName()
        assert spoken and spoken != widget.objectName(), f"{name_of(widget)}: {spoken!r}"


async def test_f6_cycles_the_panes(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await two_exchanges(window, wire_server, qtbot)
    window.activateWindow()
    window.sidebar.search_box.setFocus()
    order = []
    for _ in range(5):
        press(qtbot, Qt.Key.Key_F6)
        order.append(name_of(focused()))
    assert order == [
        "scrollback",
        "promptEditor",
        "workingPromptEditor",
        "conversationList",
        "scrollback",
    ]
    press(qtbot, Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    assert focused() is window.sidebar.view


async def test_f6_reaches_the_welcomes_buttons(window: MainWindow, qtbot: QtBot) -> None:
    assert window.centre_stack.currentWidget() is window.welcome  # a first run
    window.activateWindow()
    window.sidebar.view.setFocus()
    press(qtbot, Qt.Key.Key_F6)
    assert window.welcome.isAncestorOf(focused())
    press(qtbot, Qt.Key.Key_F6)
    assert focused() is window.prompt


async def open_menu(qtbot: QtBot) -> QMenu:
    press(qtbot, Qt.Key.Key_Return)
    await wait_until(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu)
    return menu


async def test_the_third_message_by_keyboard_copy_and_fork_from_here(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    ids = await two_exchanges(window, wire_server, qtbot)
    third = ids[2]
    keys = window.scrollback.keys
    window.activateWindow()
    window.prompt.setFocus()
    press(qtbot, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)  # from the prompt: the last
    assert keys.focused == ids[3] and focused() is window.scrollback
    press(qtbot, Qt.Key.Key_Up)  # then the arrows alone
    assert keys.focused == third and keys.ringed() == third
    frame = window.scrollback.item_frame(third)
    assert frame is not None
    ring = frame.frameFormat()
    assert ring.border() == 2 and ring.borderBrush().color() == window.palette().highlight().color()
    await wait_until(lambda: window.scrollback.item_actions.row.event_id == third)

    menu = await open_menu(qtbot)
    assert menu.activeAction().objectName() == "actionCopyItem"
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(menu, Qt.Key.Key_Return)
    assert QGuiApplication.clipboard().text() == "two"
    await wait_until(lambda: QApplication.activePopupWidget() is None)
    assert focused() is window.scrollback and keys.ringed() == third  # the ring stays

    parent = window.current_id
    menu = await open_menu(qtbot)
    qtbot.keyClick(menu, Qt.Key.Key_Down)
    assert menu.activeAction().objectName() == "actionForkHere"
    qtbot.keyClick(menu, Qt.Key.Key_Return)
    await settle(window)
    assert window.current_id != parent
    child = window.store.get_conversation(window.current_id)
    assert child is not None and child.parent == parent
    shown = texts(window)
    assert "one" in shown and "first answer" in shown and "two" in shown
    assert "second answer" not in shown  # forked at the third message


async def test_ctrl_shift_m_focuses_the_model_selector(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await with_models(window, wire_server)
    window.resize(1400, 900)  # the whole toolbar shows
    window.activateWindow()
    window.prompt.setFocus()
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    press(qtbot, Qt.Key.Key_M, ctrl_shift)
    assert focused() is window.toolbar_actions.model_selector
    press(qtbot, Qt.Key.Key_Down)  # the arrows choose
    assert window.toolbar_actions.model_selector.currentData() == "other-model"
    await settle(window)
    assert window.session.model == "other-model"


async def test_ctrl_shift_m_offers_the_models_as_a_menu_when_the_toolbar_hides_them(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await with_models(window, wire_server)
    window.resize(640, 500)
    selector = window.toolbar_actions.model_selector
    await wait_until(lambda: not selector.isVisible())
    window.activateWindow()
    window.prompt.setFocus()
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    press(qtbot, Qt.Key.Key_M, ctrl_shift)
    await wait_until(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu) and menu.activeAction().text() == "mock-gpt"
    qtbot.keyClick(menu, Qt.Key.Key_Down)
    qtbot.keyClick(menu, Qt.Key.Key_Return)
    await wait_until(lambda: window.session.model == "other-model")
    assert selector.currentData() == "other-model"


async def test_ctrl_slash_lists_the_registrys_shortcuts(window: MainWindow, qtbot: QtBot) -> None:
    window.activateWindow()
    window.prompt.setFocus()
    press(qtbot, Qt.Key.Key_Slash, Qt.KeyboardModifier.ControlModifier)
    dialog = window.findChild(ShortcutsDialog, "shortcutsDialog")
    assert isinstance(dialog, ShortcutsDialog) and dialog.isVisible()
    listed = dialog.listed()
    native = QKeySequence.SequenceFormat.NativeText
    for spec in toolbar_specs(window.session):
        if spec.shortcut:
            keys = QKeySequence(spec.shortcut).toString(native)
            assert any(k == keys and w.startswith(spec.text) for k, w in listed), spec.name
    assert any("Ctrl+Shift+M" in k and "model" in w for k, w in listed)
    assert any("F6" in k for k, _ in listed)
    dialog.close()
    press(qtbot, Qt.Key.Key_F1)
    assert dialog.isVisible()
    dialog.close()


async def test_alt_shift_r_opens_the_rewind_menu_and_the_arrows_pick_an_older_mark(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels = iter(["first", "second"])
    monkeypatch.setattr(window, "ask_text", lambda *a: a[-1](next(labels)))
    wire_server.route("/v1/chat/completions", reply("an answer"))
    for text in ("one", "two"):
        await type_and_send(qtbot, window, text)
        await settle(window)
        window.toolbar_actions["actionMark"].trigger()
        await settle(window)
    older = window.session.state.marks[0].event_id
    window.activateWindow()
    window.prompt.setFocus()
    press(qtbot, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.ShiftModifier)
    await wait_until(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu) and menu.objectName() == "rewindMenu"
    assert menu.activeAction().text() == "second"  # the newest first
    qtbot.keyClick(menu, Qt.Key.Key_Down)
    assert menu.activeAction().data() == older
    qtbot.keyClick(menu, Qt.Key.Key_Return)
    await settle(window)
    assert [m.event_id for m in window.session.state.marks] == [older]


async def test_help_lists_the_same_shortcuts(window: MainWindow) -> None:
    text = window.session.registry.help_text()
    assert "  /mark - Create a checkpoint [LABEL] (Ctrl+M)" in text
    assert "  /help - Show available commands\n" in text  # no shortcut: nothing added


def test_the_ring_goes_with_escape_and_when_the_keyboard_leaves(qtbot: QtBot) -> None:
    from ikgui.domain.events import Event
    from ikgui.ui.transcript.scrollback import ScrollbackView

    holder = QWidget()
    qtbot.addWidget(holder)
    view = ScrollbackView(holder)
    other = QLineEdit(holder)
    view.resize(700, 500)
    holder.show()
    holder.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is holder)
    events = [Event(i, "c", "user" if i % 2 else "assistant", f"m{i}", {}) for i in range(1, 5)]
    view.show_events(events)
    frame = view.item_frame(2)
    assert frame is not None
    padding = frame.frameFormat().padding() + frame.frameFormat().border()
    assert view.keys.focus_item(2) and view.keys.ringed() == 2
    ringed = view.item_frame(2)
    assert ringed is not None  # the ring takes the padding's room: nothing moves
    assert ringed.frameFormat().padding() + ringed.frameFormat().border() == padding
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert view.keys.ringed() is None and view.keys.focused is None
    qtbot.keyClick(view, Qt.Key.Key_Down)  # none focused: Down starts at the first
    assert view.keys.focused == 1
    other.setFocus()
    qtbot.waitUntil(lambda: view.keys.ringed() is None)

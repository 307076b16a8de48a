"""The window runs commands with values, never composed slash lines (issue 9, item 3):
its toolbar is generated from the registry's entries, each action enabled by its
command's own rule, and Retry sends a stored message as text, not through the parser."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.domain.state.reading import ROLE_LABELS
from ikgui.ui.prompt import context_dialog
from ikgui.ui.transcript import items as scrollback_items
from ikgui.ui.window.actions import BESIDE_MODELS, SETTINGS
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]


async def test_the_toolbar_is_the_registry_s_actions_each_enabled_by_its_rule(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    session = window.session
    beside = [c for c in session.registry.actions() if c.action.object_name in BESIDE_MODELS]  # type: ignore[union-attr]
    entries = [(c.action, c.name) for c in session.registry.actions() if c not in beside]
    shown = [
        a for a in window.toolbar_actions.toolbar.actions() if a.objectName().startswith("action")
    ]
    for command in beside:  # an icon beside the model box: the same action
        name = command.action.object_name  # type: ignore[union-attr]
        button = window.toolbar_actions.toolbar.findChild(QToolButton, name)
        assert button is not None and button.defaultAction() is window.toolbar_actions[name]
    assert [a.objectName() for a in shown] == [
        *(action.object_name for action, _ in entries),  # type: ignore[union-attr]
        SETTINGS.name,
    ]
    for (action, _name), qaction in zip(entries, shown, strict=False):
        assert action is not None
        assert qaction.text() == action.label
        assert qaction.statusTip() == action.tooltip
        assert qaction.shortcut().toString() == (action.shortcut or "")
    wire_server.route("/v1/chat/completions", reply("hello"))
    await type_and_send(qtbot, window, "hi")
    await settle(window)
    for (_, name), qaction in zip(entries, shown, strict=False):
        assert qaction.isEnabled() == session.can_run(name), name


async def test_retry_sends_a_stored_slash_message_as_text(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", Reply.error(503, "busy"))
    await type_and_send(qtbot, window, "//help")  # sent as the text "/help"
    await settle(window)
    error = window.session.state.scrollback[-1]
    assert error.kind == Kind.ERROR
    wire_server.route("/v1/chat/completions", reply("it is a command word"))
    window.scrollback.retry_requested.emit(error.id)
    await settle(window)
    assert texts(window)[-1] == "it is a command word"
    assert not any(t.startswith("Available commands") for t in texts(window))
    sent = wire_server.requests[-1].json()["messages"]
    assert sent[-1] == {"role": "user", "content": "/help"}


async def test_the_rewind_menu_and_the_model_selector_run_with_values(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire_server.route("/v1/chat/completions", reply("one"))
    await type_and_send(qtbot, window, "first")
    await settle(window)
    monkeypatch.setattr(window, "ask_text", lambda *a: a[-1]("/clear"))  # a label, not a command
    window.toolbar_actions["actionMark"].trigger()
    await settle(window)
    [mark] = window.session.state.marks
    assert mark.label == "/clear" and window.session.state.context
    await type_and_send(qtbot, window, "second")
    await settle(window)
    window.toolbar_actions.update()
    menu = window.toolbar_actions.rewind_menu
    menu.actions()[0].trigger()
    await settle(window)
    assert [e.content for e in window.session.state.context] == ["first", "one"]
    assert texts(window)[-1] == "Rewound to /clear"


def test_the_window_reads_by_the_domain_s_rules() -> None:
    assert context_dialog.format_context is not None
    from ikgui.domain.state import reading

    assert context_dialog.format_context is reading.format_context
    for kind, label in ROLE_LABELS.items():
        assert scrollback_items._shown_as(kind)[1] == label

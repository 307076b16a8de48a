"""The real window, driven like a user would, against a real local model server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtWidgets import QComboBox, QLineEdit, QListView
from pytestqt.qtbot import QtBot

from ikgui.app.root import build_window
from ikgui.domain.events import Kind
from ikgui.storage import open_store
from ikgui.ui.sidebar.conversation_model import ConversationListModel, IdRole
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.sidebar_rows import child_ids
from tests.support.wire_server import Reply, WireServer
from tests.ui.conftest import wait_until

__all__ = ["closed_url", "wire_server", "wire_server_session"]


def sse(*pieces: str) -> bytes:
    chunks = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append({"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 7}})
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def reply(*pieces: str, pause: float = 0.0) -> Reply:
    parts = [p + b"\n\n" for p in sse(*pieces).split(b"\n\n") if p]
    return Reply(chunks=tuple(parts), headers=(("content-type", "text/event-stream"),), pause=pause)


def write_config(home: Path, url: str, prompt_mode: str = "line") -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"""
[defaults]
provider = "local"
model = "mock-gpt"
agent = "painter"

[providers.local]
kind = "openai"
base_url = "{url}/v1"

[agents.painter]
system_prompt = "You draft image prompts."
prompt_mode = "{prompt_mode}"
""",
        encoding="utf-8",
    )


async def opened(home: Path, check_timeout: float = 2.0) -> MainWindow:
    """A shown window whose start-up work is done. Not given to ``qtbot.addWidget``:
    pytest-qt processes Qt events between tests, outside the asyncio loop, so every
    window must be quiet (no task pending) whenever a test or fixture returns."""
    win = build_window(home, check_timeout=check_timeout)
    win.show()
    await quiet(win)
    return win


async def quiet(win: MainWindow) -> None:
    await wait_until(lambda: all(t.done() for t in win._tasks) and not win.session.streams)


async def closed(win: MainWindow) -> None:
    await win.shutdown()
    win.close()
    win.deleteLater()


@pytest_asyncio.fixture(loop_scope="session")
async def window(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> AsyncIterator[MainWindow]:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    yield win
    await closed(win)


async def type_and_send(qtbot: QtBot, win: MainWindow, text: str) -> None:
    win.prompt.setFocus()
    qtbot.keyClicks(win.prompt, text)
    qtbot.keyClick(win.prompt, Qt.Key.Key_Return)


async def settle(win: MainWindow) -> None:
    await quiet(win)


def texts(win: MainWindow) -> list[str]:
    return win.scrollback.item_texts()


async def test_type_enter_and_watch_the_reply_stream_in(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    words = [f"w{i} " for i in range(40)]
    wire_server.route("/v1/chat/completions", reply(*words, pause=0.02))
    await type_and_send(qtbot, window, "draw a cat")
    await wait_until(lambda: any(t.startswith("w0 w1") for t in texts(window)))
    assert window.session.streaming and window.stop_button.isVisible()
    partial = next(t for t in texts(window) if t.startswith("w0"))
    assert "w39" not in partial  # it is still arriving
    await settle(window)
    assert texts(window)[-2:] == ["draw a cat", "".join(words).strip()]
    assert window.prompt.toPlainText() == ""
    assert not window.stop_button.isVisible() and window.send_button.isEnabled()
    assert "11 in / 7 out" in window.status_usage.text()
    sent = wire_server.bodies()[-1]["messages"]
    assert sent[0] == {"role": "system", "content": "You draft image prompts."}


async def test_stop_mid_reply_keeps_the_partial_text(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply(*[f"x{i} " for i in range(300)], pause=0.02))
    await type_and_send(qtbot, window, "count")
    await wait_until(lambda: any(t.startswith("x0 x1 x2") for t in texts(window)))
    qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    await settle(window)
    last = window.session.store.events(window.current_id)[-1]
    assert last.kind == Kind.ASSISTANT and last.data["interrupted"] is True
    assert last.content.startswith("x0 x1 x2") and "x299" not in last.content
    assert texts(window)[-1].endswith("(stopped)")


async def test_mark_rewind_from_the_toolbar(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire_server.route("/v1/chat/completions", reply("first answer"))
    await type_and_send(qtbot, window, "one")
    await settle(window)
    assert not window.toolbar_actions["actionRewind"].isEnabled()  # no marks yet
    monkeypatch.setattr(window, "ask_text", lambda *a: a[-1]("checkpoint"))
    window.toolbar_actions["actionMark"].trigger()
    await settle(window)
    assert window.toolbar_actions["actionRewind"].isEnabled()
    menu = [a.text() for a in window.toolbar_actions.rewind_menu.actions()]
    assert menu == ["checkpoint"]
    wire_server.route("/v1/chat/completions", reply("second answer"))
    await type_and_send(qtbot, window, "two")
    await settle(window)
    assert "second answer" in texts(window)
    window.toolbar_actions.rewind_menu.actions()[0].trigger()
    await settle(window)
    assert texts(window)[-4:] == [
        "first answer",
        "⚑ checkpoint",
        "2 items rewound · Show",
        "Rewound to checkpoint",
    ]
    assert [m["content"] for m in window.session.context()] == [
        "You draft image prompts.",
        "one",
        "first answer",
    ]


async def test_fork_shows_the_child_under_its_parent(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("root reply"))
    await type_and_send(qtbot, window, "root question")
    await settle(window)
    parent = window.current_id
    window.toolbar_actions["actionFork"].trigger()
    await settle(window)
    child = window.current_id
    assert child != parent and window.session.conversation.parent == parent
    notice = "Forked from “root question”  ·  Branches"  # by title (issue 12 item 3)
    assert texts(window)[-3:] == ["root question", "root reply", notice]
    await wait_until(lambda: _child_ids(window.sidebar.model, parent) == [child])
    model = window.sidebar.model
    assert model.parent_row(model.index_of(child)).data(IdRole) == parent


def _child_ids(model: ConversationListModel, parent_id: str) -> list[str]:
    index = model.index_of(parent_id)
    return child_ids(model, index) if index.isValid() else []


async def test_editing_the_working_prompt_gives_exactly_one_notice(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("Here.\n\nPrompt: a tabby cat"))
    await type_and_send(qtbot, window, "a cat please")
    await settle(window)
    editor = window.working.editor
    assert editor.toPlainText() == "a tabby cat"
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, "a sparkly cat")
    assert window.working.indicator.isVisible() and window.working.save_button.isVisible()
    qtbot.keyClicks(editor, " in a hat")
    window.prompt.setFocus()  # leaving the editor records nothing: the edit is a draft
    await settle(window)
    assert not [t for t in texts(window) if t.startswith("✎ You edited the prompt")]
    assert window.working.indicator.isVisible()
    window.working.save_button.click()
    await settle(window)
    assert not window.working.indicator.isVisible()
    notices = [t for t in texts(window) if t.startswith("✎ You edited the prompt")]
    assert len(notices) == 1 and "+4 −1 words" in notices[0]
    edit = window.session.state.context[-1]
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-prompt:expand/{edit.id}"))
    notices = [t for t in texts(window) if t.startswith("✎ You edited the prompt")]
    assert "a tabby\u2009sparkly cat in a hat" in notices[0]
    stored = [e.content for e in window.session.state.context if e.kind == Kind.PROMPT_EDIT]
    assert stored == ['[user edited prompt to: "a sparkly cat in a hat"]']  # what the model reads
    editor.setFocus()
    qtbot.keyClicks(editor, "  ")  # whitespace only: not an edit
    assert not window.working.indicator.isVisible()
    qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    await settle(window)
    assert len([t for t in texts(window) if t.startswith("✎ You edited")]) == 1
    assert window.session.context()[-1]["content"] == '[current prompt: "a sparkly cat in a hat"]'


async def test_rename_and_tag_from_the_sidebar_and_search(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("the aurora borealis glows"))
    await type_and_send(qtbot, window, "northern lights")
    await settle(window)
    conv = window.current_id
    window.sidebar.rename_requested.emit(conv, "Sky photos")
    window.sidebar.tags_requested.emit(conv, ["Travel", "night"])
    await wait_until(lambda: window.store.get_conversation(conv).tags)  # type: ignore[union-attr]
    stored = window.store.get_conversation(conv)
    assert stored is not None and stored.title == "Sky photos"
    assert stored.tags == ("night", "travel")
    assert window.windowTitle().startswith("Sky photos")
    search = window.sidebar.findChild(QLineEdit, "conversationSearch")
    window.toolbar_actions["actionNew"].trigger()
    await settle(window)
    qtbot.keyClicks(search, "borealis")
    listing = window.sidebar.findChild(QListView, "conversationList")
    await wait_until(
        lambda: (
            listing.model().rowCount() >= 1
            and "Sky photos" in str(listing.model().index(0, 0).data())
        )
    )


async def test_no_model_server_shows_a_banner(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, closed_url)
    win = await opened(home, check_timeout=3.0)
    try:
        await wait_until(lambda: win.banner.isVisible())
        assert "Could not connect" in win.banner.text() and closed_url in win.banner.text()
        await type_and_send(qtbot, win, "hello?")
        await settle(win)
        assert texts(win)[-2] == "hello?"
        assert texts(win)[-1].startswith("Could not connect")
        assert not win.feedback.isVisible()  # the card says it (issue 10, item 7)
    finally:
        await closed(win)


async def test_restart_shows_the_same_state(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    first = await opened(home)
    wire_server.route("/v1/chat/completions", reply("Prompt: a red fox"))
    await type_and_send(qtbot, first, "fox")
    await settle(first)
    monkeypatch.setattr(first, "ask_text", lambda *a: a[-1]("m1"))
    first.toolbar_actions["actionMark"].trigger()
    await settle(first)
    qtbot.keyClicks(first.prompt, "an unsent draft")
    before = texts(first)
    conv = first.current_id
    await closed(first)

    second = await opened(home)
    try:
        assert second.current_id == conv
        assert texts(second) == before
        assert [m.label for m in second.session.state.marks] == ["m1"]
        assert second.prompt.toPlainText() == "an unsent draft"
        assert second.working.editor.toPlainText() == "a red fox"
    finally:
        await closed(second)


async def test_changes_from_another_process_appear(window: MainWindow) -> None:
    other = open_store(Path(window.store.path))  # type: ignore[attr-defined]
    try:
        from ikgui.domain.session.session import Session

        session = Session(other)
        session.edit_prompt("from the command line")
        new_id = session.conversation.id
    finally:
        other.close()
    await wait_until(lambda: window.sidebar.model.index_of(new_id).isValid(), timeout=3)


async def test_a_write_from_another_process_keeps_what_is_being_typed(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("ok"))
    await type_and_send(qtbot, window, "first")
    await settle(window)
    conv = window.current_id
    window.prompt.setPlainText("half a thought")  # (not saved as a draft yet)
    other = open_store(Path(window.store.path))  # type: ignore[attr-defined]
    try:
        other.append_event(conv, Kind.USER, "from the terminal", None)
    finally:
        other.close()
    await wait_until(lambda: "from the terminal" in texts(window), timeout=4)
    assert window.prompt.toPlainText() == "half a thought"


async def test_slash_completion_and_history(window: MainWindow, qtbot: QtBot) -> None:
    window.prompt.setFocus()
    qtbot.keyClicks(window.prompt, "/re")
    popup = window.prompt.completer.popup()
    await wait_until(popup.isVisible)
    shown = [
        window.prompt.completer.completionModel().index(i, 0).data()
        for i in range(window.prompt.completer.completionCount())
    ]
    assert any(s.startswith("/rewind — ") for s in shown)
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    window.prompt.clear()
    window.prompt.remember("earlier line")
    qtbot.keyClick(window.prompt, Qt.Key.Key_Up)
    assert window.prompt.toPlainText() == "earlier line"
    qtbot.keyClick(window.prompt, Qt.Key.Key_Down)
    assert window.prompt.toPlainText() == ""
    qtbot.keyClicks(window.prompt, "line one")
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.prompt, "line two")
    assert window.prompt.toPlainText() == "line one\nline two"
    _ = (QComboBox, QPoint)


async def test_closing_mid_reply_keeps_what_arrived(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    wire_server.route("/v1/chat/completions", reply(*[f"z{i} " for i in range(300)], pause=0.02))
    await type_and_send(qtbot, win, "long one")
    await wait_until(lambda: any(t.startswith("z0 z1 z2") for t in texts(win)))
    conv = win.current_id
    await closed(win)
    store = open_store(home / "ikgui.db")
    try:
        last = store.events(conv)[-1]
        assert last.kind == Kind.ASSISTANT and last.data["interrupted"] is True
        assert last.content.startswith("z0 z1 z2") and "streaming" not in last.data
    finally:
        store.close()


async def test_retry_and_edit_and_resend(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire_server.route("/v1/chat/completions", Reply.error(503, "busy"))
    await type_and_send(qtbot, window, "are you there?")
    await settle(window)
    error = window.session.state.scrollback[-1]
    assert error.kind == Kind.ERROR
    wire_server.route("/v1/chat/completions", reply("yes, here"))
    window.scrollback.menu_for(error.id)  # the error item offers Retry
    window.scrollback.retry_requested.emit(error.id)
    await settle(window)
    assert texts(window)[-3:] == ["are you there?", "Failed attempt · 1 item · Show", "yes, here"]

    parent = window.current_id
    first_user = window.session.state.context[0]
    wire_server.route("/v1/chat/completions", reply("wide awake"))
    window.scrollback.edit_resend_requested.emit(first_user.id, "are you awake?")
    await settle(window)
    assert window.session.conversation.parent == parent
    assert [e.content for e in window.session.state.context] == ["are you awake?", "wide awake"]
    # the message and its answer: Retry did not send the message a second time
    assert window.store.get_conversation(parent).message_count == 2  # type: ignore[union-attr]


async def test_trash_and_restore_from_the_window(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("kept"))
    await type_and_send(qtbot, window, "to be trashed")
    await settle(window)
    doomed = window.current_id
    window.toolbar_actions["actionDelete"].trigger()
    await settle(window)
    assert window.store.get_conversation(doomed).visible_status == "trashed"  # type: ignore[union-attr]
    assert window.current_id != doomed
    assert not window.sidebar.model.index_of(doomed).isValid()
    window.sidebar.restore_requested.emit([doomed])
    await settle(window)
    assert window.store.get_conversation(doomed).visible_status == "active"  # type: ignore[union-attr]


async def test_show_context_and_settings_open(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    window.session.edit_prompt("a quiet harbour")
    window.working.context_button.click()
    dialog = window.context_dialog
    text = dialog.view.toPlainText()
    # The system prompt names where it came from (issue 26): the agent's.
    assert text.startswith("[system: agent painter]\nYou draft image prompts.")
    assert text.rstrip().endswith('[current prompt: "a quiet harbour"]')
    assert dialog.document["messages"] == window.session.context()
    dialog.close()
    settings = window.open_settings("providers")
    assert settings.objectName() == "settingsDialog" and settings.isVisible()
    settings.close()
    assert window.toolbar_actions["actionSettings"].isEnabled()


async def test_closing_the_window_shuts_down_and_releases_the_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, WireServer.closed_url())
    win = await opened(home, check_timeout=0.5)
    released: list[bool] = []
    previous = win.services.on_closed
    win.services.on_closed = lambda: (previous and previous(), released.append(True))
    win.prompt.setPlainText("unsent words")
    win.close()  # the user's close button: shutdown runs as a task, then the window closes
    await wait_until(lambda: released == [True] and not win.isVisible())
    store = open_store(home / "ikgui.db")
    try:
        assert store.list_conversations() == []  # the draft of an unsaved one is in the ini
    finally:
        store.close()
    ini = (home / "window.ini").read_text()
    assert "unsent words" in ini and "geometry" in ini


async def test_closing_a_branch_from_the_sidebar_returns_to_its_parent(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("base"))
    await type_and_send(qtbot, window, "start")
    await settle(window)
    parent = window.current_id
    window.toolbar_actions["actionFork"].trigger()
    await settle(window)
    child = window.current_id
    menu = window.sidebar.menu_for(window.sidebar.model.index_of(child))
    assert menu is not None
    close = next(a for a in menu.actions() if a.objectName() == "closeAction")
    close.trigger()
    await settle(window)
    assert window.current_id == parent
    assert texts(window)[-1] == "Closed “↳ start · branch 1”"  # by title (issue 12 item 3)
    assert window.store.get_conversation(child).status == "killed"  # type: ignore[union-attr]
    root_menu = window.sidebar.menu_for(window.sidebar.model.index_of(parent))
    assert root_menu is not None
    assert "closeAction" not in [a.objectName() for a in root_menu.actions()]
    menu.deleteLater()
    root_menu.deleteLater()


async def test_settings_saved_from_the_window_reach_the_config_and_the_next_send(
    tmp_path: Path, wire_server: WireServer, closed_url: str, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, closed_url)  # starts pointing at nothing
    win = await opened(home, check_timeout=1.0)
    try:
        assert win.banner.isVisible()
        dialog = win.open_settings("providers")
        page = dialog.providers_page
        assert page.select("local")
        page.url_edit.clear()
        qtbot.keyClicks(page.url_edit, f"{wire_server.url}/v1")
        dialog.save()
        await settle(win)
        assert f'base_url = "{wire_server.url}/v1"' in (home / "config.toml").read_text()
        assert not win.banner.isVisible()  # the model check ran again and succeeded
        wire_server.route("/v1/chat/completions", reply("now it works"))
        await type_and_send(qtbot, win, "hello again")
        await settle(win)
        assert texts(win)[-1] == "now it works"
    finally:
        await closed(win)


async def test_the_tag_editor_keeps_a_tag_another_program_added_meanwhile(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("noted"))
    await type_and_send(qtbot, window, "tag me")
    await settle(window)
    conv = window.current_id
    window.sidebar.tags_requested.emit(conv, ["alpha"])
    await wait_until(lambda: window.store.get_conversation(conv).tags == ("alpha",))  # type: ignore[union-attr]
    window.sidebar.edit_tags(conv)
    dialog = window.sidebar.tag_editor
    assert dialog is not None
    with open_store(Path(window.store.path)) as other:  # type: ignore[attr-defined]
        other.set_tags(conv, ["alpha", "from-cli"])  # e.g. `ikgui conv tag … +from-cli`
    dialog.line.setText("alpha, beta")  # the user adds beta to what the editor showed
    dialog.accept()
    await wait_until(lambda: "beta" in window.store.get_conversation(conv).tags)  # type: ignore[union-attr]
    assert window.store.get_conversation(conv).tags == ("alpha", "beta", "from-cli")  # type: ignore[union-attr]

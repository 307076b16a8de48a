"""The working-prompt panel (issue 11): shown when it has something to do, explicit
Save/Revert, drafts that survive a restart, Tab never trapped, and the version history."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.ui.prompt.history_dialog import PromptHistoryDialog
from ikgui.ui.transcript.items import copy_text
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.styled import app_styled
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


def _notices(win: MainWindow) -> list[str]:
    return [
        e.content for e in win.session.state.context if e.kind == Kind.PROMPT_EDIT
    ]  # what the model reads (the window shows each as a card)


async def _drafted(win: MainWindow, server: WireServer, qtbot: QtBot, prompt: str) -> None:
    server.route("/v1/chat/completions", reply(f"Here.\n\nPrompt: {prompt}"))
    await type_and_send(qtbot, win, "draw")
    await settle(win)


async def test_revert_and_escape_restore_the_recorded_prompt(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await _drafted(window, wire_server, qtbot, "a tabby cat")
    editor = window.working.editor
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, "a dog")
    window.working.revert_button.click()
    assert editor.toPlainText() == "a tabby cat" and not window.working.indicator.isVisible()
    qtbot.keyClicks(editor, " and more")
    assert window.working.indicator.isVisible()
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert editor.toPlainText() == "a tabby cat" and not window.working.indicator.isVisible()
    await settle(window)
    assert _notices(window) == []


async def test_tab_leaves_the_panel_and_ctrl_tab_inserts_a_tab(
    window: MainWindow, qtbot: QtBot
) -> None:
    editor = window.working.editor
    window.activateWindow()
    editor.setFocus()
    assert QApplication.focusWidget() is editor
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert "\t" not in editor.toPlainText()
    assert QApplication.focusWidget() is not editor
    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert editor.toPlainText() == "\t"
    window.working.revert_button.click()


async def test_send_saves_an_unsaved_edit_first_and_says_so(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await _drafted(window, wire_server, qtbot, "a cat")
    editor = window.working.editor
    editor.selectAll()
    editor.insertPlainText("a cat, watercolor")
    assert "saves your working-prompt edit" in window.send_button.toolTip()
    wire_server.route("/v1/chat/completions", reply("Nice."))
    await type_and_send(qtbot, window, "go on")
    await settle(window)
    assert _notices(window) == ['[user edited prompt to: "a cat, watercolor"]']
    kinds = [e.kind for e in window.session.state.context[-3:]]
    assert kinds == [Kind.PROMPT_EDIT, Kind.USER, Kind.ASSISTANT]
    assert "saves" not in window.send_button.toolTip()


async def test_an_unsaved_edit_survives_switching_and_a_restart(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    first = await opened(home)
    await _drafted(first, wire_server, qtbot, "a red fox")
    conv = first.current_id
    first.working.editor.selectAll()
    first.working.editor.insertPlainText("a red fox at dawn")
    first.toolbar_actions["actionNew"].trigger()
    await settle(first)
    assert first.working.editor.toPlainText() == ""
    first.commands.open_conversation(conv)
    await settle(first)
    assert first.working.editor.toPlainText() == "a red fox at dawn"
    assert first.working.indicator.isVisible()
    await closed(first)
    second = await opened(home)
    try:
        assert second.current_id == conv
        assert second.working.editor.toPlainText() == "a red fox at dawn"
        assert second.working.indicator.isVisible()
        assert second.session.state.working_prompt == "a red fox"  # nothing was recorded
        assert _notices(second) == []
    finally:
        await closed(second)


async def test_panel_is_collapsed_for_an_agent_without_prompt_mode(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url, prompt_mode="off")
    win = await opened(home)
    try:
        assert win.working.collapsed and not win.working.editor.isVisible()
        assert win.working.toggle.isVisible() and win.working.width() <= 30
        win.prompt_panel.action.trigger()  # the toggle (Ctrl+Shift+P): the user's choice
        assert not win.working.collapsed and win.working.editor.isVisible()
        win.prompt_panel.action.trigger()
        assert win.working.collapsed
        await type_and_send(qtbot, win, "/prompt a cat on a mat")
        await settle(win)
        assert not win.working.collapsed  # /prompt TEXT opens it
        assert win.working.editor.toPlainText() == "a cat on a mat"
    finally:
        await closed(win)
    again = await opened(home)
    try:
        assert not again.working.collapsed  # remembered by the window
    finally:
        await closed(again)


async def test_history_lists_every_version_and_restores_one(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await _drafted(window, wire_server, qtbot, "a cat")
    await type_and_send(qtbot, window, "/mark m")
    await settle(window)
    await _drafted(window, wire_server, qtbot, "a wizard cat")
    window.working.editor.selectAll()
    window.working.editor.insertPlainText("a wizard cat, watercolor")
    window.working.save_button.click()
    await settle(window)
    await type_and_send(qtbot, window, "/rewind m")
    await settle(window)
    window.working.history_button.click()
    dialog = window.prompt_panel.history_dialog
    assert isinstance(dialog, PromptHistoryDialog)
    rows = [dialog.list.item(i).text().splitlines()[0] for i in range(dialog.list.count())]
    assert [r.split(" · ")[0] for r in rows] == [
        "A rewind restored it",
        "You edited it",
        "The assistant drafted it",
        "The assistant drafted it",
    ]
    dialog.list.setCurrentRow(1)
    assert "watercolor" in dialog.diff.toPlainText()
    dialog.copy_button.click()
    assert QGuiApplication.clipboard().text() == "a wizard cat, watercolor"
    before = len(_notices(window))
    dialog.restore_button.click()
    await settle(window)
    assert len(_notices(window)) == before + 1
    last = window.session.state.context[-1]
    assert last.kind == Kind.PROMPT_EDIT and last.data["prompt"] == "a wizard cat, watercolor"
    assert window.working.editor.toPlainText() == "a wizard cat, watercolor"


async def test_show_context_shows_what_changed_since_the_last_reply(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await _drafted(window, wire_server, qtbot, "a cat")
    window.working.editor.selectAll()
    window.working.editor.insertPlainText("a black cat")
    window.working.save_button.click()
    await settle(window)
    window.working.context_button.click()
    dialog = window.context_dialog
    changes = dialog.changes.toPlainText().splitlines()
    assert '− [current prompt: "a cat"]' not in changes  # the last request had no prompt yet
    assert '+ [user edited prompt to: "a black cat"]' in changes
    assert '+ [current prompt: "a black cat"]' in changes
    assert "+ Here." in changes  # the reply is new context since it was asked
    from PySide6.QtWidgets import QLabel

    heading = dialog.findChildren(QLabel)[0].text()
    session = window.session
    model = session.model or "default model"
    assert heading.startswith(f"What the model ({session.provider} · {model}) receives next")
    dialog.close()


def _card_runs(win: MainWindow, event_id: int) -> list[tuple[str, bool, bool]]:
    """(text, struck out, on a coloured ground) of each fragment of an item's card."""
    frame = win.scrollback.item_frame(event_id)
    assert frame is not None
    runs = []
    block = frame.firstCursorPosition().block()
    while block.isValid() and block.position() < frame.lastPosition():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            runs.append(
                (fragment.text(), fmt.fontStrikeOut(), fmt.background().style() != Qt.NoBrush)
            )
            it += 1
        block = block.next()
    return runs


async def test_an_edit_notice_is_a_card_with_the_words_changed_and_restore(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    await _drafted(window, wire_server, qtbot, "a tabby cat in a hat")
    drafted = window.session.state.context[-1]
    assert "✎ The assistant drafted a prompt" in texts(window)[-1]  # under the reply
    window.working.editor.selectAll()
    window.working.editor.insertPlainText("a black cat in a tall hat")
    window.working.save_button.click()
    await settle(window)
    edit = window.session.state.context[-1]
    assert edit.kind == Kind.PROMPT_EDIT
    assert texts(window)[-1].startswith("✎ You edited the prompt")
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-prompt:expand/{edit.id}"))
    runs = _card_runs(window, edit.id)
    assert ("tabby", True, True) in runs  # deleted: struck out
    assert ("black", False, True) in runs  # inserted: on a green ground
    assert any(text.strip() == "tall" and ground for text, _, ground in runs)
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-prompt:restore/{drafted.id}"))
    await settle(window)
    last = window.session.state.context[-1]
    assert last.kind == Kind.PROMPT_EDIT and last.id != edit.id
    assert last.data["prompt"] == "a tabby cat in a hat"
    assert last.data["restored_from"] == drafted.id
    assert texts(window)[-1].startswith("✎ You restored an earlier version")
    assert window.working.editor.toPlainText() == "a tabby cat in a hat"


async def test_a_long_card_is_folded_until_show_all(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    long = " ".join(f"word{i}" for i in range(200))
    window.session.edit_prompt(long)
    await settle(window)
    edit = window.session.state.context[-1]
    assert "word0" not in texts(window)[-1]  # compact: the panel shows the prompt
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-prompt:expand/{edit.id}"))
    card = texts(window)[-1]
    assert "Show all" in card and "word0" in card and "word199" not in card
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-prompt:all/{edit.id}"))
    assert "word199" in texts(window)[-1] and "Show all" not in texts(window)[-1]
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-prompt:collapse/{edit.id}"))
    assert "word0" not in texts(window)[-1] and "Show changes" in texts(window)[-1]


async def test_a_json_reply_without_a_prompt_block_says_so(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url, prompt_mode="json")
    win = await opened(home)
    try:
        wire_server.route("/v1/chat/completions", reply("Sure, here it is.\n---\n{oops"))
        await type_and_send(qtbot, win, "draw")
        await settle(win)
        assert texts(win)[-1].endswith(
            "⚠ Prompt block is not valid JSON: Expecting property name enclosed in double quotes"
        )
        assert win.session.state.working_prompt == ""
    finally:
        await closed(win)


async def test_the_prompt_is_shown_once_and_only_older_versions_offer_restore(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    """Issue 20 item 18: the prompt was shown three times (reply, card, panel), and the
    version in force offered "Restore this version"."""
    await _drafted(window, wire_server, qtbot, "a lighthouse by the sea")
    drafted = window.session.state.context[-1]
    reply, card = texts(window)[-1].split("\n", 1)
    assert reply == "Here."  # the reply up to the prompt it ends with...
    assert card == "✎ The assistant drafted a prompt  ·  5 words  ·  in use\nShow changes"
    assert window.working.editor.toPlainText() == "a lighthouse by the sea"  # ...shown here
    assert copy_text(drafted) == "Here.\n\nPrompt: a lighthouse by the sea"  # Copy: all
    window.prompt_panel.toggle()  # the panel shut: the card shows the prompt instead
    assert window.working.collapsed
    assert "a lighthouse by the sea" in texts(window)[-1]
    window.prompt_panel.toggle()
    assert "a lighthouse by the sea" not in texts(window)[-1]
    window.working.editor.selectAll()
    window.working.editor.insertPlainText("a lighthouse by the sea, red-and-white")
    window.working.save_button.click()
    await settle(window)
    edit = window.session.state.context[-1]
    card = texts(window)[-1]
    assert card.startswith("✎ You edited the prompt  ·  +1 −0 words  ·  in use")
    assert "Restore this version" not in card and "red-and-white" not in card
    # the draft is no longer in use: its card offers Restore now
    assert "Restore this version" in window.scrollback.item_texts()[-2]
    window.scrollback.anchorClicked.emit(QUrl(f"ikgui-prompt:expand/{edit.id}"))
    runs = _card_runs(window, edit.id)
    assert (", red-and-white", False, True) in runs  # an insertion, nothing struck out
    assert not any(struck for _, struck, _ in runs)
    window.working.history_button.click()
    dialog = window.prompt_panel.history_dialog
    assert isinstance(dialog, PromptHistoryDialog)
    assert dialog.list.currentRow() == 0 and dialog.restore_button.isHidden()
    dialog.list.setCurrentRow(1)
    assert not dialog.restore_button.isHidden()
    dialog.close()
    assert drafted.id != edit.id


async def test_the_panel_copies_its_prompt_exactly_at_the_transcript_s_text_size(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    """Issue 20 item 18: a Copy button on the panel; its text as large as the replies'."""
    await _drafted(window, wire_server, qtbot, "a cat")
    exact = "a cat,\twatercolour\n\n  second line  "
    window.working.editor.setPlainText(exact)
    QGuiApplication.clipboard().clear()
    window.working.copy_button.click()
    assert QGuiApplication.clipboard().text() == exact
    assert window.working.copy_button.text() == "Copied ✓"

    def sizes() -> tuple[float, float]:
        return window.working.editor.font().pointSizeF(), window.scrollback.font().pointSizeF()

    panel, transcript = sizes()
    assert panel == transcript
    window.text_zoom.actions["actionTextLarger"].trigger()
    assert sizes()[0] == sizes()[1] > transcript
    window.text_zoom.actions["actionTextNormal"].trigger()
    assert sizes() == (panel, transcript)
    with app_styled("dark"):  # a theme's style sheet keeps it too, and a change of theme
        window.text_zoom.actions["actionTextSmaller"].trigger()
        assert sizes()[0] == sizes()[1] < transcript
        with app_styled("light"):
            await settle(window)
            assert sizes()[0] == sizes()[1] < transcript
        window.text_zoom.actions["actionTextNormal"].trigger()

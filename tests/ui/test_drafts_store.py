"""Issue 22, item 8: the message draft and the working prompt's drafts (its unsaved
edit, and the edit a Clear set aside) are session state kept with the conversation in
the store — seen after a restart, by a second session on the same database (another
process, another machine), on SQLite and on PostgreSQL — written after a pause in
typing, never once per keystroke; drafts an older window kept in its state file are
carried over once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from ikgui.domain.session.session import Session
from ikgui.storage import PeeweeStore, open_store
from ikgui.ui.prompt.drafts import OLD_KEYS
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.store_window import opened_over
from tests.ui.test_prompt_clear import edit_and_clear
from tests.ui.test_window import closed, opened, settle, write_config
from tests.ui.test_working_prompt import _drafted

__all__ = ["wire_server", "wire_server_session"]

BOTH = ("sqlite", "postgresql")


def location(kind: str, home: Path, request: pytest.FixtureRequest) -> Path | str:
    if kind == "postgresql":
        url: str = request.getfixturevalue("pg_url")
        return url
    return home / "ikgui.db"


async def open_on(where: Path | str, home: Path) -> MainWindow:
    return await opened_over(open_store(where), home)


def seen_elsewhere(where: Path | str, conv_id: str) -> tuple[str, str | None, str | None]:
    """The drafts a second session on the same database sees (another process)."""
    with open_store(where) as store:
        session = Session(store)
        conv = session.open(conv_id)
        return conv.draft, conv.prompt_draft, conv.prompt_set_aside


def count_writes(store: PeeweeStore) -> list[dict[str, Any]]:
    """Every ``update_conversation`` the window makes from now on, with its fields."""
    writes: list[dict[str, Any]] = []
    write: Callable[..., None] = store.update_conversation

    def counted(conv_id: str, **changes: Any) -> None:
        writes.append(changes)
        write(conv_id, **changes)

    store.update_conversation = counted  # type: ignore[method-assign]
    return writes


def pause(win: MainWindow) -> None:
    """The typing pause the keeper waits for, now (no clock: its timer's timeout)."""
    timer = win.drafts.keeper.timer
    assert timer.isActive()
    timer.timeout.emit()


@pytest.mark.parametrize("kind", BOTH)
async def test_drafts_are_kept_in_the_store_across_a_restart_and_seen_elsewhere(
    kind: str,
    tmp_path: Path,
    wire_server: WireServer,
    qtbot: QtBot,
    request: pytest.FixtureRequest,
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    where = location(kind, home, request)
    first = await open_on(where, home)
    try:
        await _drafted(first, wire_server, qtbot, "a red fox")
        conv = first.current_id
        first.prompt.setFocus()
        qtbot.keyClicks(first.prompt, "and now a")  # a message typed, not sent
        first.working.editor.setFocus()
        first.working.editor.selectAll()
        qtbot.keyClicks(first.working.editor, "a red fox at dawn")  # an edit, not saved
        pause(first)
        first.drafts.save_draft()  # (the message draft's own pause)
        assert seen_elsewhere(where, conv) == ("and now a", "a red fox at dawn", None)
    finally:
        await closed(first)
    state = QSettings(str(home / "window.ini"), QSettings.Format.IniFormat)
    assert [k for k in state.allKeys() if k.startswith("working_prompt/drafts")] == []

    again = await open_on(where, home)
    try:
        assert again.current_id == conv
        assert again.prompt.toPlainText() == "and now a"
        assert again.working.editor.toPlainText() == "a red fox at dawn"
        assert again.session.prompt_edited and again.working.indicator.isVisible()
        again.working.revert_button.click()  # the edit is dropped: everywhere
        pause(again)
        assert seen_elsewhere(where, conv) == ("and now a", None, None)
    finally:
        await closed(again)


async def test_the_edit_a_clear_set_aside_is_seen_by_another_session(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        await edit_and_clear(win, wire_server, qtbot)
        conv = win.current_id
        pause(win)
        assert seen_elsewhere(home / "ikgui.db", conv) == ("", None, "a blue fox")
        win.working.restore_edit_button.click()
        await settle(win)
        pause(win)
        assert seen_elsewhere(home / "ikgui.db", conv) == ("", "a blue fox", None)
    finally:
        await closed(win)


async def test_typing_fifty_characters_writes_the_store_once(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        await _drafted(win, wire_server, qtbot, "a red fox")
        writes = count_writes(win.store)  # type: ignore[arg-type]
        editor = win.working.editor
        editor.setFocus()
        editor.selectAll()
        text = "a red fox at dawn, in the snow, under a pale moon."
        assert len(text) == 50
        qtbot.keyClicks(editor, text)
        assert writes == []  # typing writes nothing
        pause(win)
        assert writes == [{"prompt_draft": text}]
        win.drafts.keeper.flush()  # nothing more is due: nothing more is written
        win.drafts.save_draft()  # (the message editor is empty, as stored)
        assert writes == [{"prompt_draft": text}]
    finally:
        await closed(win)


async def test_drafts_an_older_window_kept_in_its_state_are_carried_over_once(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        await _drafted(win, wire_server, qtbot, "a red fox")
        conv = win.current_id
    finally:
        await closed(win)
    state = QSettings(str(home / "window.ini"), QSettings.Format.IniFormat)
    state.setValue(f"{OLD_KEYS['prompt_draft']}/{conv}", "a red fox, old edit")
    state.setValue(f"{OLD_KEYS['prompt_set_aside']}/{conv}", "a fox set aside")
    state.setValue(f"{OLD_KEYS['prompt_draft']}/chat-gone", "of a conversation deleted since")
    state.sync()
    del state

    again = await opened(home)
    try:
        assert again.current_id == conv
        assert again.working.editor.toPlainText() == "a red fox, old edit"
        assert again.session.prompt_edited
        assert again.working.restore_edit_button.isVisible()
        assert seen_elsewhere(home / "ikgui.db", conv) == (
            "",
            "a red fox, old edit",
            "a fox set aside",
        )
    finally:
        await closed(again)
    state = QSettings(str(home / "window.ini"), QSettings.Format.IniFormat)
    assert [k for k in state.allKeys() if k.startswith("working_prompt/")] == []

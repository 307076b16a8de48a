"""The window shows the session's read-only answer (issue 22 item 3) and decides none of
its own: a session made the demo's is shown as the demo (banner, actions, title); over a
store opened read-only, a send is refused by the domain, in its words, and nothing waits
in memory to be written."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

import ikgui.domain.session.session
import ikgui.storage
from ikgui.domain.errors import UserError
from ikgui.domain.events import Conversation
from ikgui.domain.session.read_only import DEMO, Reason
from ikgui.storage import open_store
from tests.support.fixtures import closed_url
from tests.ui.test_read_only_store import opened_read_only
from tests.ui.test_window import closed, opened, write_config

__all__ = ["closed_url"]


async def test_a_session_locked_as_the_demo_is_shown_as_the_demo(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session answers "the demo" from the start; nothing else tells the window.
    monkeypatch.setattr(ikgui.domain.session.session, "store_lock", lambda store: DEMO)
    win = await opened(tmp_path / "home", check_timeout=0.3)
    try:
        assert win.session.read_only is DEMO
        assert win.read_only and win.windowTitle().endswith(" (read-only demo) — ikgui")
        enabled = [n for n, a in win.toolbar_actions.actions.items() if a.isEnabled()]
        assert enabled == ["actionExport"] and not win.send_button.isEnabled()
        assert win.banner.label.text().startswith("This is a demo")
        await win.run_line("/mark here")
        assert win.feedback.text() == DEMO.message
    finally:
        await closed(win)


async def test_a_send_over_a_read_only_store_is_refused_in_the_domain_s_words(
    tmp_path: Path, closed_url: str, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    write_config(home, closed_url)
    with open_store(home / "ikgui.db") as store:
        store.insert_conversation(
            Conversation(id="chat-aaaa", title="Lighthouse notes", created_at=1.0, updated_at=1.0)
        )
        store.append_event("chat-aaaa", "user", "how tall is the lighthouse")
    monkeypatch.setattr(ikgui.storage, "open_store", opened_read_only)
    win = await opened(home)
    try:
        answer = win.session.read_only
        assert answer is not None and answer.reason is Reason.STORE
        assert win.banner.label.text().startswith(answer.message[:-1])
        assert win.read_only and win.windowTitle().endswith(" (read-only) — ikgui")
        assert win.prompt.isReadOnly() and not win.send_button.isEnabled()
        enabled = {n for n, a in win.toolbar_actions.actions.items() if a.isEnabled()}
        assert "actionExport" in enabled and not enabled & {"actionMark", "actionRename"}
        await win.run_line("and its light?")
        assert win.feedback.text() == answer.message
        with pytest.raises(UserError) as refused:  # the domain's own refusal, the same words
            await win.session.send("and its light?")
        assert refused.value.message == answer.message
        assert not win.session.writes  # nothing waits in memory to be written
        assert win.scrollback.item_texts()[-1] == "how tall is the lighthouse"
    finally:
        await closed(win)

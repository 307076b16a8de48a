"""The sidebar re-reads only when what it lists may have changed.

Another process streaming a reply (``ikgui run``, a window on another machine) saves the
growing text about once a second: each save changes the database (SQLite's
``data_version``, PostgreSQL's notifications), and the window takes it into the open
transcript, but the sidebar lists nothing that changed, so it is not reloaded (no listing
query, no relayout, the hover kept). A rename, pin, trash, tag, new conversation or new
event made by the other process still shows in the sidebar within the poll.

Real parts: the window over a SQLite file with a second store on the same file (the
window's one-second poll), and over PostgreSQL with a second store as another machine's
(the fallback poll slowed to a minute: what shows came through LISTEN/NOTIFY).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation
from ikgui.storage import PeeweeStore, open_store
from ikgui.ui.sidebar.conversation_model import ConversationRole, StreamingRole
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_live_pg import first_exchange, pg_window
from tests.ui.test_live_stream import FINISHED, GROWING, Counted
from tests.ui.test_window import texts, window

__all__ = ["closed_url", "pg_window", "window", "wire_server", "wire_server_session"]

#: The window's poll is a second; a little more for a loaded machine.
WITHIN = 3.0


def row(win: MainWindow, conv_id: str) -> Conversation | None:
    conv = win.sidebar.model.index_of(conv_id).data(ConversationRole)
    return conv if isinstance(conv, Conversation) else None


def marked(win: MainWindow, conv_id: str) -> bool:
    """The row's streaming marker (the badge a reply streaming here shows)."""
    return bool(win.sidebar.model.index_of(conv_id).data(StreamingRole))


def listed(win: MainWindow, conv_id: str) -> bool:
    return row(win, conv_id) is not None


async def grows_without_reloads(
    win: MainWindow, other: PeeweeStore, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> str:
    """The other store grows a reply in the open conversation: the transcript shows each
    save, the sidebar is re-read for none of them. Returns the conversation's id."""
    conv = win.current_id
    other.append_event(conv, "user", "asked elsewhere")
    reply = other.append_event(conv, "assistant", "", GROWING)
    other.update_event(reply.id, "w0", GROWING)  # its first text: a message more
    await wait_until(lambda: (row(win, conv) or Conversation("")).message_count == 4, WITHIN)
    await wait_until(lambda: texts(win)[-1] == "w0", WITHIN)
    reloads = Counted(monkeypatch, win.sidebar, "reload")
    listings = Counted(monkeypatch, win.store, "list_conversations")
    text = "w0"
    for i in range(1, 5):
        text += f" w{i}"
        other.update_event(reply.id, text, GROWING)
        await wait_until(lambda t=text: texts(win)[-1] == t, WITHIN)
    assert (reloads.calls, listings.calls) == (0, 0)
    assert marked(win, conv)  # as a reply streaming here is
    other.update_event(reply.id, text + " done", FINISHED)  # finished: as a replay shows it
    await wait_until(lambda: texts(win)[-1] == text + " done", WITHIN)
    assert reloads.calls == 0 and (row(win, conv) or Conversation("")).message_count == 4
    await wait_until(lambda: not marked(win, conv), WITHIN)
    return conv


async def listing_changes_show(win: MainWindow, other: PeeweeStore, conv: str) -> None:
    """Each change the sidebar lists, made by the other store, shows within the poll."""
    other.update_conversation(conv, title="Renamed elsewhere")
    await wait_until(lambda: (row(win, conv) or Conversation("")).title == "Renamed elsewhere")
    other.set_pinned([conv], True)
    await wait_until(lambda: (row(win, conv) or Conversation("")).pinned, WITHIN)
    other.set_tags(conv, ["shared"])
    await wait_until(lambda: (row(win, conv) or Conversation("")).tags == ("shared",), WITHIN)
    assert win.sidebar.tag_filter.knows(("shared",))
    now = time.time()
    other.insert_conversation(Conversation("made-elsewhere", created_at=now, updated_at=now))
    await wait_until(lambda: listed(win, "made-elsewhere"), WITHIN)
    other.append_event("made-elsewhere", "user", "a question elsewhere")
    await wait_until(
        lambda: (row(win, "made-elsewhere") or Conversation("")).message_count == 1, WITHIN
    )
    other.update_conversation("made-elsewhere", trashed_at=time.time())
    await wait_until(lambda: not listed(win, "made-elsewhere"), WITHIN)
    assert listed(win, conv)


async def checked(
    win: MainWindow,
    opener: Callable[[], PeeweeStore],
    wire_server: WireServer,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await first_exchange(win, wire_server, qtbot)
    with opener() as other:
        conv = await grows_without_reloads(win, other, qtbot, monkeypatch)
        monkeypatch.undo()
        await listing_changes_show(win, other, conv)


async def test_a_reply_growing_in_another_process_reloads_no_sidebar_sqlite(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = Path(window.store.path)  # type: ignore[attr-defined]
    await checked(window, lambda: open_store(path), wire_server, qtbot, monkeypatch)


async def test_a_reply_growing_on_another_machine_reloads_no_sidebar_postgresql(
    pg_window: MainWindow,
    pg_url: str,
    wire_server: WireServer,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await checked(pg_window, lambda: open_store(pg_url), wire_server, qtbot, monkeypatch)


async def test_the_streaming_mark_of_a_reply_written_elsewhere_follows_the_open_conversation(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    conv = await first_exchange(window, wire_server, qtbot)
    with open_store(Path(window.store.path)) as other:  # type: ignore[attr-defined]
        now = time.time()
        other.insert_conversation(Conversation("another", created_at=now, updated_at=now))
        other.append_event(conv, "user", "asked elsewhere")
        reply = other.append_event(conv, "assistant", "growing", GROWING)
        await wait_until(lambda: marked(window, conv), WITHIN)
        window.open_conversation("another")
        await wait_until(lambda: not marked(window, conv), WITHIN)  # not followed any more
        assert not marked(window, "another")
        window.open_conversation(conv)
        await wait_until(lambda: marked(window, conv), WITHIN)
        other.update_event(reply.id, "grown", FINISHED)
        await wait_until(lambda: not marked(window, conv), WITHIN)

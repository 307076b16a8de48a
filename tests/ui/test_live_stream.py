"""A reply another process streams into the open conversation grows in the window.

Another process (``ikgui run -c ID``, or a window on another machine sharing a PostgreSQL
database) creates the reply's row when its send starts and then updates it about once a
second; the window takes each save in place (``ikgui.domain.session.elsewhere``): the item grows,
says it is being written elsewhere, and ends rendered as a replay would show it, without
replaying the conversation, moving the view or touching what is typed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.domain.session import writes
from ikgui.storage import PeeweeStore, open_store
from ikgui.ui.transcript.items import ELSEWHERE
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.waiting import loop_passes
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.store_window import terminal_run
from tests.ui.test_live_pg import first_exchange, pg_window, shown_within
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["closed_url", "pg_window", "window", "wire_server", "wire_server_session"]

#: A reply as the other process saves it while it grows (its process id is not ours).
GROWING = {"provider": "local", "model": "mock-gpt", "streaming": True, "owner": os.getpid() + 1}
FINISHED = {
    "provider": "local",
    "model": "mock-gpt",
    "usage": {"input": 3, "output": 9},
    "cost": 0.0,
    "finish_reason": "stop",
    "interrupted": False,
}
MARKDOWN = "Some **bold** words.\n\n```python\nprint('done')\n```\n\nThe end."


class Counted:
    """Counts the calls of a function or method it replaces (and still calls it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> None:
        self.calls = 0
        original: Callable[..., Any] = getattr(owner, name)

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counting)


def label_of(win: MainWindow, event_id: int) -> str:
    frame = win.scrollback.item_frame(event_id)
    assert frame is not None
    return frame.firstCursorPosition().block().text()


def typing_state(win: MainWindow) -> tuple[str, int, str]:
    return win.prompt.toPlainText(), win.prompt.textCursor().position(), win.working.text()


def start_typing(win: MainWindow) -> None:
    """An unsaved edit of the working prompt; half a thought in the prompt editor, the
    cursor in its middle."""
    win.working.editor.setPlainText("my unsaved working prompt")
    assert win.session.prompt_edited
    win.prompt.setFocus()
    win.prompt.setPlainText("half a thought")
    cursor = win.prompt.textCursor()
    cursor.setPosition(4)
    win.prompt.setTextCursor(cursor)


def shown_again(win: MainWindow) -> list[str]:
    """What a replay of the conversation shows (the window re-reads it whole)."""
    win.session.reload()
    return texts(win)


async def test_a_reply_ikgui_run_streams_grows_in_the_open_window(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire_server.route("/v1/chat/completions", reply("ok"))
    await type_and_send(qtbot, window, "first")
    await settle(window)
    conv = window.current_id
    words = [f"w{i} " for i in range(90)] + ["\n\n", MARKDOWN]
    wire_server.route("/v1/chat/completions", reply(*words, pause=0.06))  # ~5.5 s
    replays = Counted(monkeypatch, writes, "replayed")
    redraws = Counted(monkeypatch, window.scrollback, "show_events")
    start_typing(window)
    typed, focused = typing_state(window), window.prompt.hasFocus()
    terminal = terminal_run(window, conv, "from the terminal")
    partial: list[str] = []
    labels: set[str] = set()
    while terminal.poll() is None:
        shown = texts(window)
        if len(shown) >= 4 and shown[-2] == "from the terminal":
            label = label_of(window, window.session.state.scrollback[-1].id)
            labels.add(label)
            # (while it grows: once finished it shows rendered, as the process exits)
            if ELSEWHERE in label and shown[-1] and shown[-1] not in partial:
                partial.append(shown[-1])
        await asyncio.sleep(0.05)
    _, err = terminal.communicate()
    assert terminal.returncode == 0, err
    final = "".join(words).strip()
    # It grew on screen, several times, before the reply ended: each a start of it.
    assert len(partial) >= 2, partial
    assert all(final.startswith(text) for text in partial)
    assert any(ELSEWHERE in label for label in labels), labels
    event = window.session.state.scrollback[-1]
    await wait_until(lambda: not window.store.get_event(event.id).data.get("streaming"))  # type: ignore[union-attr]
    await wait_until(lambda: ELSEWHERE not in label_of(window, event.id), 3)
    assert texts(window)[-1].endswith("The end.")
    # No replay, no redraw of the whole transcript: the item grew and finished in place.
    assert (replays.calls, redraws.calls) == (0, 0)
    assert typing_state(window) == typed and window.prompt.hasFocus() == focused
    # The finished item reads as a replay shows it (its Markdown rendered: no ``**``).
    on_screen = texts(window)
    assert "**" not in on_screen[-1] and "print('done')" in on_screen[-1]
    assert on_screen == shown_again(window)
    stored = window.store.get_event(event.id)
    assert stored is not None and stored.content == final


def long_conversation(store: PeeweeStore) -> str:
    """A conversation long enough to scroll, written by "another process"."""
    from ikgui.domain.session.session import Session

    session = Session(store)
    session.edit_prompt("a long one")
    conv = session.conversation.id
    for i in range(40):
        store.append_event(conv, Kind.USER, f"question {i}\n" + "line\n" * 6)
        store.append_event(conv, Kind.ASSISTANT, f"answer {i}\n\n" + "more\n\n" * 6, FINISHED)
    return conv


async def test_a_growing_reply_does_not_move_the_view_of_a_reader_scrolled_up(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = open_store(Path(window.store.path))  # type: ignore[attr-defined]
    try:
        conv = long_conversation(laptop)
        window.open_conversation(conv)
        await settle(window)
        window.watcher.poll_external_changes()  # (the sidebar has seen the new rows)
        bar = window.scrollback.verticalScrollBar()
        bar.setValue(bar.maximum() // 2)
        await loop_passes()
        where = bar.value()
        assert 0 < where < bar.maximum()
        replays = Counted(monkeypatch, writes, "replayed")
        start_typing(window)
        typed = typing_state(window)
        laptop.append_event(conv, Kind.USER, "from the laptop")
        event = laptop.append_event(conv, Kind.ASSISTANT, "", GROWING)
        window.watcher.poll_external_changes()  # the window's poll timer, now
        assert texts(window)[-2:] == ["from the laptop", ""]  # (its "…" placeholder)
        assert label_of(window, event.id) == f"Assistant  mock-gpt · {ELSEWHERE}"
        text, grown = "", [""]
        pieces = {
            "Some **bold** ": "bold",
            "words.\n\n```py": "words.",
            "thon\nprint(1)\n": "print",
        }
        for piece, word in pieces.items():
            text += piece
            laptop.update_event(event.id, text, GROWING)
            window.watcher.poll_external_changes()
            grown.append(texts(window)[-1])
            assert word in grown[-1] and len(grown[-1]) > len(grown[-2])
            assert bar.value() == where
        laptop.update_event(event.id, MARKDOWN, FINISHED)
        window.watcher.poll_external_changes()
        assert bar.value() == where
        assert label_of(window, event.id) == "Assistant  mock-gpt"
        assert replays.calls == 0
        assert typing_state(window) == typed
        on_screen = texts(window)
        assert on_screen[-1] == "Some bold words.\n\nprint('done')\n\nThe end."
        assert on_screen[-6:] == shown_again(window)[-6:]  # (a replay shows the last page)
    finally:
        laptop.close()


async def test_another_machines_growing_reply_shows_as_it_grows_on_postgresql(
    pg_window: MainWindow, pg_url: str, wire_server: WireServer, qtbot: QtBot
) -> None:
    conv = await first_exchange(pg_window, wire_server, qtbot)
    with open_store(pg_url) as laptop:
        laptop.append_event(conv, Kind.USER, "from the laptop")
        event = laptop.append_event(conv, Kind.ASSISTANT, "", GROWING)
        await shown_within(lambda: texts(pg_window)[-2:] == ["from the laptop", ""])
        text = ""
        for piece in ("one ", "two ", "three"):  # each save shows (pushed: the poll is slow)
            text += piece
            laptop.update_event(event.id, text, GROWING)
            await shown_within(lambda: texts(pg_window)[-1].strip() == text.strip())  # noqa: B023
        laptop.update_event(event.id, MARKDOWN, FINISHED)
        await shown_within(lambda: texts(pg_window)[-1].endswith("The end."))
    assert "**" not in texts(pg_window)[-1]
    assert label_of(pg_window, event.id) == "Assistant  mock-gpt"


async def test_a_reply_whose_writer_died_ends_as_stopped(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other process holds the conversation's send lock while it writes; a crash
    drops the lock, and the window (after a quiet while) shows the reply stopped."""
    from ikgui.ui.window import watcher

    monkeypatch.setattr(watcher, "QUIET_S", 0.0)
    laptop = open_store(Path(window.store.path))  # type: ignore[attr-defined]
    try:
        conv = long_conversation(laptop)
        window.open_conversation(conv)
        await settle(window)
        lock = laptop.send_lock(conv)
        assert lock.acquire()
        laptop.append_event(conv, Kind.USER, "from the laptop")
        event = laptop.append_event(conv, Kind.ASSISTANT, "cut short", GROWING)
        window.watcher.poll_external_changes()
        window.watcher.poll_external_changes()  # nothing changed: the writer is checked
        assert label_of(window, event.id) == f"Assistant  mock-gpt · {ELSEWHERE}"
        assert texts(window)[-1] == "cut short"
        lock.release()  # the laptop's process died
        window.watcher.poll_external_changes()
        assert label_of(window, event.id) == "Assistant  mock-gpt"
        assert texts(window)[-1] == "cut short (stopped)"
        stored = laptop.get_event(event.id)
        assert stored is not None and stored.data.get("interrupted") is True
        assert texts(window)[-3:] == shown_again(window)[-3:]
    finally:
        laptop.close()

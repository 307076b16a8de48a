"""The window opens the last conversation on a preview read from the end of its log and
replays it in full right after the first paint: what it shows is what a full open shows.
The preview is never the session's state (issue 22 item 3): the session's state is only
ever the full replay, made when first read — a send, a command, a fork or the context
before the paint replay it, and no entry point finishes anything; a tail that a rewind
cut is replayed before the paint, as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ikgui.app.root import build_window
from ikgui.domain.errors import StorageError
from ikgui.domain.events import Conversation, Kind
from ikgui.domain.state.replay import replay_conversation
from ikgui.storage import open_store
from ikgui.ui.window.main_window import MainWindow
from ikgui.ui.window.startup import TAIL_EVENTS
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, quiet, reply, type_and_send

__all__ = ["wire_server", "wire_server_session"]

CONV = "chat-long"


def make_home(home: Path, url: str, messages: int, rewind_at: int | None = None) -> None:
    """A conversation of ``messages`` messages (a ``/model m-early`` after the sixth);
    with ``rewind_at``, a mark after that many, and a rewind to it three messages
    before the end."""
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        f'[defaults]\nprovider = "local"\nmodel = "mock-gpt"\n\n'
        f'[providers.local]\nkind = "openai"\nbase_url = "{url}/v1"\n',
        encoding="utf-8",
    )
    with open_store(home / "ikgui.db") as store:
        conv = Conversation(id=CONV, provider="local", created_at=1.0, updated_at=1.0)
        store.insert_conversation(conv)
        mark = None
        for number in range(messages):
            if number == rewind_at:
                mark = store.append_event(CONV, Kind.MARK, "", {"label": "here"})
            if mark is not None and number == messages - 3:
                data = {"target_event_id": mark.id, "target_label": "here"}
                store.append_event(CONV, Kind.REWIND, "", data)
            kind = Kind.USER if number % 2 == 0 else Kind.ASSISTANT
            store.append_event(CONV, kind, f"message {number}")
            if number == 5:
                data = {"command": "model", "model": "m-early"}
                store.append_event(CONV, Kind.COMMAND, "/model m-early", data)


async def first_painted(home: Path) -> MainWindow:
    win = build_window(home, check_timeout=0.3)
    win.show()
    await wait_until(lambda: win.first_paint.done)
    await quiet(win)
    return win


async def shown_by_a_full_open(win: MainWindow) -> list[str]:
    """What the window shows when the conversation is opened again (from the sidebar)."""
    win.open_conversation(CONV)
    await quiet(win)
    await wait_until(lambda: not win.scrollback.filling)  # the page's rest, in steps
    return win.scrollback.item_texts()


async def test_after_the_replay_the_window_shows_what_a_full_open_shows(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home", wire_server.url, 400)
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        assert win.startup.previewing  # the tail is shown first
        assert win.scrollback.item_texts()[-1] == "message 399"
        preview = win.startup.preview
        assert preview is not None
        last = preview.scrollback[-1].id
        frame = win.scrollback.item_frame(last)
        win.show()
        await wait_until(lambda: win.first_paint.done)
        await quiet(win)
        assert not win.startup.previewing and len(win.session.state.context) == 400
        assert win.scrollback.item_frame(last) is frame  # the items shown were kept
        at_start = win.scrollback.item_texts()
        assert win.scrollback.has_earlier()  # older pages load on scrolling up
        assert at_start == await shown_by_a_full_open(win)
    finally:
        await closed(win)


async def test_a_send_right_after_start_waits_for_the_replay_and_then_works(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home", wire_server.url, 400)
    wire_server.route("/v1/chat/completions", reply("an answer"))
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        win.show()
        assert win.startup.previewing and not win.first_paint.done
        await type_and_send(qtbot, win, "one more")  # before the first paint
        await wait_until(lambda: win.scrollback.item_texts()[-1:] == ["an answer"])
        await quiet(win)
        sent = wire_server.bodies()[-1]["messages"]
        assert len(sent) == 401 and sent[-1] == {"role": "user", "content": "one more"}
        assert sent[0]["content"] == "message 0"  # the whole context, not the tail's
        state = replay_conversation(win.store, CONV)
        assert [e.content for e in state.context[-2:]] == ["one more", "an answer"]
        assert win.scrollback.item_texts()[-2:] == ["one more", "an answer"]
    finally:
        await closed(win)


async def test_a_line_run_before_the_replay_runs_on_the_whole_conversation(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home", wire_server.url, 400)
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        assert win.startup.previewing
        await win.run_line("/clear")  # a clear keeps the model in force...
        assert not win.startup.previewing
        cleared = replay_conversation(win.store, CONV)
        assert cleared.context == [] and cleared.model == "m-early"  # ...the full state's
        win.show()
        await quiet(win)
    finally:
        await closed(win)


async def test_a_tail_cut_by_a_rewind_is_replayed_before_the_first_paint(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    messages = 400
    make_home(tmp_path / "home", wire_server.url, messages, rewind_at=messages - TAIL_EVENTS)
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        assert not win.startup.previewing  # replayed already, as before tail-first
        before_paint = win.scrollback.item_texts()
        assert "message 396" not in before_paint  # rewound
        assert before_paint[-1] == f"message {messages - 1}"
        win.show()
        await wait_until(lambda: win.first_paint.done)
        await quiet(win)
        assert win.scrollback.item_texts() == await shown_by_a_full_open(win)
    finally:
        await closed(win)


async def test_what_another_process_wrote_meanwhile_shows_after_the_replay(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home", wire_server.url, 400)
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        assert win.startup.previewing
        with open_store(tmp_path / "home" / "ikgui.db") as other:
            other.append_event(CONV, Kind.USER, "from ikgui run")
        win.show()
        await wait_until(lambda: win.first_paint.done)
        await quiet(win)
        assert win.scrollback.item_texts()[-2:] == ["message 399", "from ikgui run"]
        assert win.scrollback.item_texts() == await shown_by_a_full_open(win)
    finally:
        await closed(win)


async def test_the_context_shown_right_after_start_is_the_whole_conversations(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home", wire_server.url, 400)
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        assert win.startup.previewing
        win.show_context()
        document = win.context_dialog.document
        assert document["model"] == "m-early" and len(document["messages"]) == 400
        win.context_dialog.close()
        win.show()
        await quiet(win)
    finally:
        await closed(win)


async def test_a_fork_right_after_start_is_made_from_the_whole_conversation(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    make_home(tmp_path / "home", wire_server.url, 400)
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        preview = win.startup.preview
        assert preview is not None
        last = preview.scrollback[-1].id
        win.scrollback.fork_requested.emit(last)  # "Fork from here" on the last message
        child = win.session.conversation
        assert child.parent == CONV and child.model == "m-early"  # the model in force
        win.show()
        await quiet(win)
    finally:
        await closed(win)


async def test_a_replay_that_fails_after_the_paint_leaves_the_tail_for_a_new_conversation(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_home(tmp_path / "home", wire_server.url, 400)
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        assert win.startup.previewing

        def broken(*args: object, **kwargs: object) -> None:
            raise StorageError("The database could not be read: disk I/O error.")

        monkeypatch.setattr(win.store, "events", broken)
        win.show()
        await wait_until(lambda: win.first_paint.done)
        await quiet(win)
        assert not win.startup.previewing and not win.session.saved  # a new one
        assert "could not be read" in win.feedback.text()
        assert "disk I/O error" in win.feedback.text()
        assert win.scrollback.item_texts() == []
    finally:
        monkeypatch.undo()
        await closed(win)


async def test_the_session_s_state_is_the_full_replay_even_while_the_preview_shows(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    """Nothing reads the preview as the conversation: the session answers from the full
    replay, made when first asked (here, before the first paint), and the window then
    shows it, keeping the items it showed."""
    make_home(tmp_path / "home", wire_server.url, 400)
    win = build_window(tmp_path / "home", check_timeout=0.3)
    try:
        preview = win.startup.preview
        assert preview is not None and not win.first_paint.done
        assert len(preview.scrollback) == TAIL_EVENTS  # what is shown: the tail
        frame = win.scrollback.item_frame(preview.scrollback[-1].id)
        assert win.session.model == "m-early"  # the /model before the tail: replayed
        assert len(win.session.state.context) == 400
        assert not win.startup.previewing  # the window took in the replay
        assert win.scrollback.item_frame(preview.scrollback[-1].id) is frame
        assert win.scrollback.has_earlier()
        assert win.status_model.text().endswith("m-early")
        win.show()
        await wait_until(lambda: win.first_paint.done)
        await quiet(win)
        assert win.scrollback.item_texts() == await shown_by_a_full_open(win)
    finally:
        await closed(win)

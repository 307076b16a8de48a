"""The window on a full disk keeps working and saves later (SPEC §11); one reply at a time
per conversation, shared with ``ikgui run``.

"Full" is SQLite's real SQLITE_FULL path: ``PRAGMA max_page_count`` on the window's own
store connection; raising it again is the space coming back.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ikgui.storage import open_store
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.store_window import terminal_run
from tests.ui.test_window import reply, settle, texts, type_and_send, window

__all__ = ["closed_url", "window", "wire_server", "wire_server_session"]


def fill(win: MainWindow) -> None:
    conn = win.store._connection()  # type: ignore[attr-defined]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def free(win: MainWindow) -> None:
    win.store._connection().execute("PRAGMA max_page_count = 1073741823")  # type: ignore[attr-defined]


def stored(win: MainWindow) -> list[tuple[str, str]]:
    with open_store(Path(win.store.path)) as fresh:  # type: ignore[attr-defined]
        return [(e.kind, e.content) for e in fresh.events(win.current_id)]


async def test_a_full_disk_shows_not_saved_yet_and_saves_in_order_when_space_returns(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot, tmp_path: Path
) -> None:
    wire_server.route("/v1/chat/completions", reply("ok"))
    await type_and_send(qtbot, window, "first")
    await settle(window)
    fill(window)
    long_text = "a long message " * 1500
    wire_server.route("/v1/chat/completions", reply("a long", " answer"))
    window.prompt.setPlainText(long_text)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    await settle(window)
    # Nothing is lost and nothing stops: the exchange is shown, the editor is free...
    assert texts(window)[-2:] == [long_text.strip(), "a long answer"]
    assert window.prompt.toPlainText() == ""
    # ...and a plain, non-modal state says it is not saved yet.
    status = window.unsaved.label
    assert window.unsaved.isVisible() and status.textFormat() == Qt.TextFormat.PlainText
    assert status.text().startswith("Not saved yet: the disk is full — retrying")
    assert window.unsaved.retry_button.isVisible()
    window.grab().save(str(tmp_path / "not-saved-yet.png"))
    assert stored(window) == [("user", "first"), ("assistant", "ok")]
    # A mark made meanwhile waits behind the exchange.
    expected = [
        ("user", "first"),
        ("assistant", "ok"),
        ("user", long_text),
        ("assistant", "a long answer"),
        ("mark", ""),
    ]
    free(window)
    await window.session.execute("/mark later")
    # Never ahead of what waits: nothing new yet, or (if the retry timer already fired
    # on a slow machine) all of it, in order.
    assert stored(window) in (expected[:2], expected)
    qtbot.mouseClick(window.unsaved.retry_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not window.session.writes and not window.unsaved.isVisible())
    assert stored(window) == expected
    assert texts(window)[-3:-1] == [long_text.strip(), "a long answer"]
    # The window goes on with real ids: the next exchange is saved directly.
    wire_server.route("/v1/chat/completions", reply("again"))
    await type_and_send(qtbot, window, "next")
    await settle(window)
    assert stored(window)[-2:] == [("user", "next"), ("assistant", "again")]
    assert not window.unsaved.isVisible()


async def test_closing_with_unsaved_changes_warns_then_keeps_them_in_a_recovery_file(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("ok"))
    await type_and_send(qtbot, window, "first")
    await settle(window)
    fill(window)
    wire_server.route("/v1/chat/completions", reply("the answer ", "to keep"))
    window.prompt.setPlainText("a question " * 1500)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    await settle(window)
    assert window.session.writes
    window.close()  # warned, not closed
    await wait_until(lambda: window.feedback.isVisible())
    assert window.isVisible() and "not saved yet" in window.feedback.text()
    window.close()  # closed: what waits goes to a recovery file next to the database
    await wait_until(lambda: not window.isVisible())
    line = window.unsaved.rescued or ""
    folder = Path(window.store.path).parent / "recovered"  # type: ignore[attr-defined]
    assert line.startswith("Error: could not save the reply to ") and str(folder) in line
    saved = next(folder.iterdir()).read_text(encoding="utf-8")
    assert "the answer to keep" in saved and "a question a question" in saved


async def test_the_window_waits_for_a_reply_ikgui_run_is_writing_then_refuses(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("ok"))
    await type_and_send(qtbot, window, "first")
    await settle(window)
    conv = window.current_id
    words = [f"t{i} " for i in range(40)]
    wire_server.route("/v1/chat/completions", reply(*words, pause=0.05))
    sent = len(wire_server.bodies("/v1/chat/completions"))
    terminal = terminal_run(window, conv, "from the terminal")
    await wait_until(lambda: len(wire_server.bodies("/v1/chat/completions")) > sent, 20)
    # The window waits for that reply (the loop keeps running), then sends after it.
    window.session.send_wait = 60
    await type_and_send(qtbot, window, "from the window")
    await wait_until(lambda: window.statusBar().currentMessage().startswith("Waiting"))
    assert window.statusBar().currentMessage() == (
        f"Waiting for the reply another ikgui is writing in {conv} (up to 60 s)…"
    )
    await wait_until(lambda: terminal.poll() is not None, 30)
    await settle(window)
    _, err = terminal.communicate()
    assert terminal.returncode == 0, err
    reply_text = "".join(words).strip()
    assert [(k, c.strip()) for k, c in stored(window)][2:] == [
        ("user", "from the terminal"),
        ("assistant", reply_text),
        ("user", "from the window"),
        ("assistant", reply_text),
    ]
    assert texts(window)[-4:] == ["from the terminal", reply_text, "from the window", reply_text]
    assert not window.statusBar().currentMessage().startswith("Waiting")
    # A reply that takes longer than the wait: a plain refusal, the text back in the editor.
    window.session.send_wait = 0.3
    sent = len(wire_server.bodies("/v1/chat/completions"))
    terminal = terminal_run(window, conv, "again from the terminal")
    await wait_until(lambda: len(wire_server.bodies("/v1/chat/completions")) > sent, 20)
    await type_and_send(qtbot, window, "too soon")
    await settle(window)
    assert window.feedback.text() == (
        f"Error: Another reply is being written in {conv}; try again when it ends"
    )
    assert window.prompt.toPlainText() == "too soon"
    await wait_until(lambda: terminal.poll() is not None, 30)
    _, err = terminal.communicate()
    assert terminal.returncode == 0, err
    assert "too soon" not in [c for _, c in stored(window)]


async def test_a_new_conversation_started_on_a_full_disk_is_listed_once_saved(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    wire_server.route("/v1/chat/completions", reply("ok"))
    await type_and_send(qtbot, window, "first")
    await settle(window)
    first = window.current_id
    window.toolbar_actions["actionNew"].trigger()
    await settle(window)
    fill(window)
    wire_server.route("/v1/chat/completions", reply("kept"))
    window.prompt.setPlainText("started on a full disk " * 1000)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    await settle(window)
    conv = window.current_id
    assert texts(window)[-1] == "kept" and window.unsaved.isVisible()
    assert not window.sidebar.model.index_of(conv).isValid()  # not in the database yet
    window.open_conversation(first)  # elsewhere while it waits
    await settle(window)
    assert window.unsaved.isVisible()
    free(window)
    qtbot.mouseClick(window.unsaved.retry_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not window.session.writes)
    assert window.sidebar.model.index_of(conv).isValid()
    window.open_conversation(conv)
    await settle(window)
    assert [k for k, _ in stored(window)] == ["user", "assistant"]
    assert texts(window) == [("started on a full disk " * 1000).strip(), "kept"]

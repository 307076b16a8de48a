"""The real window streaming a reply from the real wire server: finished Markdown blocks
render while the reply is still open, the unfinished paragraph is plain text, and the
end changes nothing (the final document equals the one-shot render of the stored reply)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.ui.transcript.items import copy_text
from ikgui.ui.transcript.scrollback import ScrollbackView
from ikgui.ui.transcript.stream_render import warm_up
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_stream_render import PARTIAL, assert_reads_rendered, blocks_of
from tests.ui.test_window import closed, opened, quiet, reply, type_and_send, write_config

__all__ = ["closed_url", "wire_server", "wire_server_session"]


async def test_a_reply_reads_rendered_while_it_streams(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    pieces = [PARTIAL[:40], PARTIAL[40:], "** on and on", ".\n\nA last line."]
    wire_server.route("/v1/chat/completions", reply(*pieces, pause=0.6))
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    window = await opened(home)
    try:
        await type_and_send(qtbot, window, "fruit?")
        scrollback = window.scrollback
        await wait_until(lambda: "Still **typing" in scrollback.document().toPlainText())
        assert window.session.streaming  # the reply is still open
        reply_event = window.session.state.scrollback[-1]
        assert reply_event.kind == Kind.ASSISTANT
        assert_reads_rendered(scrollback, reply_event.id)
        frame = scrollback.item_frame(reply_event.id)
        await quiet(window)
        assert not window.session.streaming
        stored = window.session.store.events(window.current_id)[-1]
        assert stored.content == "".join(pieces)
        assert scrollback.item_frame(stored.id) is frame  # finished in place
        assert frame is not None
        fresh = ScrollbackView()
        qtbot.addWidget(fresh)
        fresh.resize(scrollback.size())
        fresh.show_events([stored])
        one_shot = fresh.item_frame(stored.id)
        assert one_shot is not None
        assert blocks_of(frame) == blocks_of(one_shot)
    finally:
        await closed(window)


async def test_the_window_warms_the_renderer_up_after_its_first_paint(
    tmp_path: Path, closed_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ikgui.app.root

    warmed: list[QWidget] = []

    def warm(widget: QWidget) -> None:
        warmed.append(widget)
        warm_up(widget)  # the real one: renders and paints without a Qt warning

    monkeypatch.setattr(ikgui.app.root, "warm_up_rendering", warm)
    home = tmp_path / "home"
    write_config(home, closed_url)
    window = await opened(home)
    try:
        await window.first_paint.wait()
        await wait_until(lambda: bool(warmed))
        assert warmed == [window.scrollback]
    finally:
        await closed(window)


async def test_a_stopped_reply_reads_like_a_finished_one(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    """Issue 20 item 15: a stopped reply kept its raw ``**``."""
    from PySide6.QtCore import Qt

    pieces = ["Intro.\n\nSome **bold** and **unfinished", *[" words" for _ in range(200)]]
    wire_server.route("/v1/chat/completions", reply(*pieces, pause=0.05))
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    window = await opened(home)
    try:
        await type_and_send(qtbot, window, "talk")
        scrollback = window.scrollback
        await wait_until(lambda: "unfinished words" in scrollback.document().toPlainText())
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
        await quiet(window)
        stored = window.session.store.events(window.current_id)[-1]
        assert stored.data.get("interrupted") is True
        text = scrollback.item_texts()[-1]
        assert text.startswith("Intro.\nSome bold and unfinished words") and text.endswith(
            "(stopped)"
        )
        assert "**" not in scrollback.document().toPlainText()
        assert window.scrollback.item_frame(stored.id) is not None
        assert copy_text(stored).startswith("Intro.\n\nSome **bold** and **unfinished")
        assert not copy_text(stored).rstrip().endswith("**")  # Copy gives the source
    finally:
        await closed(window)

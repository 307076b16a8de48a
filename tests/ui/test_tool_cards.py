"""Tool calls in the real window (SPEC §12, issue 23 item 3): a model (a real HTTP server
replaying OpenAI's streamed ``tool_calls``) asks ``time__get_current_time`` of a real
``mcp-server-time``; a ``toolCallCard`` asks the user, and the transcript shows the call,
the decision and the result — live and after a restart."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio
from PySide6.QtCore import QRect, Qt
from pytestqt.qtbot import QtBot

from ikgui.config.loading import load_settings
from ikgui.domain.events import Event, Kind
from ikgui.ui.approvals import ToolCallCard
from ikgui.ui.transcript.inline_edit import bubble_rect
from ikgui.ui.transcript.items import ACTION_ROOM, COMMAND_LINES
from ikgui.ui.transcript.scrollback import ScrollbackView
from ikgui.ui.transcript.tool_items import INTERRUPTED
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.mcp_servers import children_of, config_table, time_server
from tests.support.waiting import wait_until
from tests.support.wire_server import ReceivedRequest, Reply, WireServer, load_recording
from tests.ui.test_window import closed, opened, quiet, reply, type_and_send, write_config

__all__ = ["wire_server", "wire_server_session"]

CALL = load_recording("openai-docs-tool-call-stream.txt")


def model(request: ReceivedRequest) -> Reply:
    """Asks for the time after each user message, then answers from the tool's result."""
    messages = request.json()["messages"]
    last = messages[-1]
    if last.get("role") != "tool":  # each call with an id of its own, as OpenAI's are
        asked = sum(1 for m in messages if m.get("role") == "user")
        body = CALL.body.replace(b"call_Xq3bT9kM2vR8", f"call_Xq3bT9kM2vR{asked}".encode())
        return Reply(body=body, headers=CALL.headers, chunk_size=40)
    return reply("The tool said: ", json.dumps(last["content"])[:60])


@pytest_asyncio.fixture(loop_scope="session")
async def home(tmp_path: Path, wire_server: WireServer) -> AsyncIterator[Path]:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write("\n" + config_table(time_server()))
    wire_server.route("/v1/chat/completions", model)
    yield home


def cards(win: MainWindow) -> list[ToolCallCard]:
    return [c for c in win.findChildren(ToolCallCard, "toolCallCard") if c.isVisible()]


def kinds(win: MainWindow) -> list[str]:
    return [e.kind for e in win.session.state.scrollback]


async def asked(win: MainWindow, qtbot: QtBot, text: str = "What time is it?") -> ToolCallCard:
    await type_and_send(qtbot, win, text)
    await wait_until(lambda: len(cards(win)) == 1, timeout=60)
    [card] = cards(win)
    return card


async def test_allow_once_runs_the_call_and_the_answer_streams(home: Path, qtbot: QtBot) -> None:
    processes = children_of()
    win = await opened(home)
    try:
        card = await asked(win, qtbot)
        assert children_of() - processes  # the server started on first need
        # The call is in the transcript as soon as it streamed in, with its arguments.
        assert kinds(win)[-1] == Kind.TOOL_CALL
        assert '"timezone": "UTC"' in win.scrollback.item_texts()[-1]
        assert win.status_stream.text() == "Waiting for your approval"
        assert card.title.text() == "Run time · get_current_time?"
        assert card.title.textFormat() == Qt.TextFormat.PlainText
        assert json.loads(card.arguments.toPlainText()) == {"timezone": "UTC"}
        assert card.once.isDefault() and card.once.hasFocus()
        assert "waits for your approval: time.get_current_time" in win.chrome.announcer.last
        qtbot.keyClick(card.once, Qt.Key.Key_Return)  # Enter allows once
        await wait_until(lambda: kinds(win)[-1] == Kind.ASSISTANT and not win.session.streaming)
        await quiet(win)
        assert kinds(win)[-4:] == ["tool_call", "tool_approval", "tool_result", "assistant"]
        events = win.session.state.scrollback
        approval = next(e for e in events if e.kind == Kind.TOOL_APPROVAL)
        assert (approval.data["decision"], approval.data["by"]) == ("once", "user")
        result = next(e for e in events if e.kind == Kind.TOOL_RESULT)
        assert result.data["success"] is True and '"timezone": "UTC"' in result.data["output"]
        assert isinstance(result.data["seconds"], float)
        assert events[-1].content.startswith("The tool said: ")
        texts = win.scrollback.item_texts()
        assert "✓ Allowed once · by you" in texts
        assert not cards(win) and win.status_stream.text() == "Ready"
        live = texts
        conv_id = win.session.conversation.id
    finally:
        await closed(win)
    await wait_until(lambda: not children_of() - processes)  # stopped at shutdown
    # Replay after a restart shows the same items: call, decision, result, answer.
    again = await opened(home)
    try:
        assert again.session.conversation.id == conv_id
        assert again.scrollback.item_texts() == live
    finally:
        await closed(again)


async def test_edited_arguments_run_and_always_allow_is_kept_in_config(
    home: Path, qtbot: QtBot
) -> None:
    win = await opened(home)
    try:
        card = await asked(win, qtbot)
        card.arguments.setPlainText("[1, 2")
        card.always.click()
        assert card.problem.isVisible() and "not valid JSON" in card.problem.text()
        assert cards(win) == [card]  # nothing decided yet
        card.arguments.setPlainText('{"timezone": "Europe/Paris"}')
        card.always.click()
        await wait_until(lambda: kinds(win)[-1] == Kind.ASSISTANT and not win.session.streaming)
        await quiet(win)
        events = win.session.state.scrollback
        approval = next(e for e in events if e.kind == Kind.TOOL_APPROVAL)
        assert approval.data["decision"] == "always"
        assert approval.data["arguments"] == {"timezone": "Europe/Paris"}
        result = next(e for e in events if e.kind == Kind.TOOL_RESULT)
        assert "Europe/Paris" in result.data["output"]
        assert load_settings(home / "config.toml").tool_servers["time"].always_allow == (
            "get_current_time",
        )
        assert win.session.settings.tool_servers["time"].always_allow == ("get_current_time",)
        # The next call is allowed by config.toml, without a card.
        await type_and_send(qtbot, win, "And now?")
        await wait_until(
            lambda: [e.kind for e in win.session.state.scrollback].count(Kind.TOOL_RESULT) == 2,
            timeout=60,
        )
        await quiet(win)
        last = [e for e in win.session.state.scrollback if e.kind == Kind.TOOL_APPROVAL][-1]
        assert last.data["by"] == "config"
        assert "✓ Always allowed · by always_allow in config.toml" in win.scrollback.item_texts()
    finally:
        await closed(win)


async def test_escape_denies_with_the_note_and_stop_cancels_a_waiting_card(
    home: Path, qtbot: QtBot
) -> None:
    win = await opened(home)
    try:
        card = await asked(win, qtbot)
        card.note.setText("not now")
        qtbot.keyClick(card.arguments, Qt.Key.Key_Escape)
        await wait_until(lambda: kinds(win)[-1] == Kind.ASSISTANT and not win.session.streaming)
        await quiet(win)
        result = next(e for e in win.session.state.scrollback if e.kind == Kind.TOOL_RESULT)
        assert (result.data["output"], result.data["success"]) == (
            "Denied by the user: not now",
            False,
        )
        assert "✗ Denied by you: not now" in win.scrollback.item_texts()
        # Stop while a card waits: the card goes, nothing is decided nor run; the call's
        # result says it was cancelled (the next request stays well-formed).
        await asked(win, qtbot, "Again?")
        before = [e.kind for e in win.session.state.scrollback]
        win.stop_button.click()
        await wait_until(lambda: not cards(win) and not win.session.streaming)
        await quiet(win)
        added = win.session.state.scrollback[len(before) :]
        assert [e.kind for e in added] == [Kind.TOOL_RESULT]
        assert (added[0].data["output"], added[0].data["success"]) == ("Cancelled", False)
        assert win.status_stream.text() != "Waiting for your approval"
        # A call a crash left without any result (stored as a dying process left it).
        call = {"id": "call_lost", "name": "get_current_time", "server": "time"}
        win.session.append(Kind.TOOL_CALL, "get_current_time()", {**call, "arguments": {}})
    finally:
        await closed(win)
    # After a restart: the cancelled call shows its result; the lost one shows as
    # interrupted; nothing asks or runs either.
    again = await opened(home)
    try:
        view = again.scrollback
        kinds_texts = zip(view.item_kinds(), view.item_texts(), strict=True)
        calls = [text for kind, text in kinds_texts if kind == Kind.TOOL_CALL]
        assert len(calls) == 3 and not calls[0].endswith(INTERRUPTED)
        assert not calls[1].endswith(INTERRUPTED) and calls[2].endswith(INTERRUPTED)
        assert not cards(again)
    finally:
        await closed(again)


def two_calls() -> bytes:
    """One reply asking for two calls, in the recording's (OpenAI's) form."""
    chunks = []
    for index, zone in enumerate(("UTC", "Europe/Paris")):
        call = {
            "index": index,
            "id": f"call_two_{index}",
            "type": "function",
            "function": {"name": "time__get_current_time", "arguments": ""},
        }
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
        arguments = json.dumps({"timezone": zone})
        piece = {"index": index, "function": {"arguments": arguments}}
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    lines = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (lines + "data: [DONE]\n\n").encode()


async def test_several_waiting_calls_are_allowed_together(
    home: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    def asks_twice(request: ReceivedRequest) -> Reply:
        last = request.json()["messages"][-1]
        if last.get("role") != "tool":
            return Reply(body=two_calls(), headers=CALL.headers)
        return reply("Both answered.")

    wire_server.route("/v1/chat/completions", asks_twice)
    win = await opened(home)
    try:
        await type_and_send(qtbot, win, "Time here and in Paris?")
        await wait_until(lambda: len(cards(win)) == 2, timeout=60)
        first, second = cards(win)
        for card in (first, second):  # each card offers it while several wait
            assert card.allow_all.isVisible() and card.allow_all.text() == "Allow all once"
        # The first keeps the keyboard and the view (the second is below it).
        assert first.once.hasFocus()
        assert win.scrollback.viewport().rect().contains(first.geometry())
        second.allow_all.click()
        await wait_until(lambda: kinds(win)[-1] == Kind.ASSISTANT and not win.session.streaming)
        await quiet(win)
        results = [e for e in win.session.state.scrollback if e.kind == Kind.TOOL_RESULT]
        assert [("Europe/Paris" in r.data["output"]) for r in results] == [False, True]
        assert all(r.data["success"] for r in results)
        assert not win.pane.approvals.waiting() and not cards(win)
    finally:
        await closed(win)


def call_box(win: MainWindow) -> QRect:
    """The tool call's item in the transcript's viewport (its bubble, margins left out)."""
    view = win.scrollback
    [call] = [e for e in win.session.state.scrollback if e.kind == Kind.TOOL_CALL][-1:]
    frame = view.item_frame(call.id)
    assert frame is not None
    return bubble_rect(view, frame).toAlignedRect()


async def test_the_card_is_the_calls_item_in_the_transcript(home: Path, qtbot: QtBot) -> None:
    """The card waits where the call streamed in — laid over its item, the transcript
    keeping room under it and scrolled to it — not in a strip apart; it stays there
    through a switch of conversation and goes when decided, the item plain again."""
    win = await opened(home)
    try:
        view = win.scrollback
        card = await asked(win, qtbot)
        assert card.parent() is view.viewport()
        box = call_box(win)
        assert card.geometry().topLeft() == box.topLeft()
        assert card.width() == box.width() and card.height() >= box.height()
        # The document keeps room for the whole card: the next item starts below it.
        layout = view.document().documentLayout()
        assert layout.documentSize().height() - view.verticalScrollBar().value() >= (
            card.geometry().bottom()
        )
        assert view.viewport().rect().contains(card.geometry())  # scrolled to it
        assert not view.item_actions.row.isVisible()  # no hover row over the card
        conv_id = win.current_id
        win.toolbar_actions["actionNew"].trigger()
        await wait_until(lambda: win.current_id != conv_id)
        await wait_until(lambda: not cards(win))
        assert win.status_stream.text() != "Waiting for your approval"
        win.open_conversation(conv_id)
        await wait_until(lambda: win.current_id == conv_id and cards(win) == [card])
        assert card.geometry().topLeft() == call_box(win).topLeft()
        assert win.status_stream.text() == "Waiting for your approval"
        height = card.height()
        card.once.click()
        await wait_until(lambda: kinds(win)[-1] == Kind.ASSISTANT and not win.session.streaming)
        await quiet(win)
        assert not cards(win)
        assert call_box(win).height() < height  # the plain call again, its usual room
        [call] = [e for e in win.session.state.scrollback if e.kind == Kind.TOOL_CALL]
        frame = view.item_frame(call.id)
        assert frame is not None and frame.frameFormat().bottomMargin() == ACTION_ROOM
        assert '"timezone": "UTC"' in view.item_texts()[view.item_kinds().index(Kind.TOOL_CALL)]
    finally:
        await closed(win)


class Lines(str):
    """An output that counts the characters split (into lines, or words)."""

    split_chars = 0

    def split(self, *args: Any, **kwargs: Any) -> list[str]:  # type: ignore[override]
        Lines.split_chars += len(self)
        return super().split(*args, **kwargs)


def test_a_10_mb_result_lays_out_its_fold_only_and_is_never_split(qtbot: QtBot) -> None:
    line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.\n"
    output = Lines(line * (10 * 1024 * 1024 // len(line)))
    data = {"tool_call_id": "c1", "name": "flood", "server": "faulty", "success": True}
    event = Event(7, "chat-t", Kind.TOOL_RESULT, "0123", {**data, "output": output})
    view = ScrollbackView()
    qtbot.addWidget(view)
    Lines.split_chars = 0
    view.append_event(event)
    [text] = view.item_texts()
    hidden = output.count("\n") + 1 - COMMAND_LINES
    assert text == line * COMMAND_LINES + f"… {hidden:,} more lines · Show all"
    assert view.document().characterCount() < 5_000  # the fold, not 10 MB
    assert Lines.split_chars == 0  # its lines counted, not split

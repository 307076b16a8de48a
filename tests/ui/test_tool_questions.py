"""A tool server's question during a call (MCP elicitation) in the real window (SPEC
§12, issue 23 item 3): a model (a real HTTP server streaming OpenAI's ``tool_calls``)
calls a tool of a real MCP server that asks the user; a window-modal form
(``toolQuestionDialog``) built from its schema is answered, declined or cancelled, and
the question and its answer are recorded with the call's result."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QSpinBox
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.domain.tools import ACCEPT, DECLINE, Answer, Question
from ikgui.ui.tool_form import ToolQuestionDialog
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.mcp_servers import config_table, everything_server, faulty_server
from tests.support.tool_streams import openai_calls, openai_text
from tests.support.waiting import wait_until
from tests.support.wire_server import CONTENT_TYPES, ReceivedRequest, Reply, WireServer
from tests.ui.test_window import closed, opened, quiet, type_and_send, write_config

__all__ = ["wire_server", "wire_server_session"]

ASKING = ("survey", "insist", "hostile_question")


def model(request: ReceivedRequest) -> Reply:
    """Calls the tool the user names (``faulty__survey``…), then says it is done."""
    messages = request.json()["messages"]
    last = messages[-1]
    headers = (("content-type", CONTENT_TYPES["openai"]),)
    if last.get("role") == "tool":
        return Reply(body=openai_text("Done."), headers=headers)
    number = sum(1 for m in messages if m.get("role") == "user")
    body = openai_calls((f"call_q{number}", str(last["content"]).strip(), "{}"))
    return Reply(body=body, headers=headers, chunk_size=40)


@pytest_asyncio.fixture(loop_scope="session")
async def home(tmp_path: Path, wire_server: WireServer) -> AsyncIterator[Path]:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    allowed = json.dumps(list(ASKING))
    everything = json.dumps(["trigger-elicitation-request"])
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write("\n" + config_table(faulty_server()) + f"always_allow = {allowed}\n")
        config.write("\n" + config_table(everything_server()))
        config.write(f"always_allow = {everything}\n")
    wire_server.route("/v1/chat/completions", model)
    yield home


def form(win: MainWindow) -> ToolQuestionDialog | None:
    found = win.findChildren(ToolQuestionDialog, "toolQuestionDialog")
    shown = [d for d in found if d.isVisible()]
    return shown[0] if shown else None


async def asking(win: MainWindow, qtbot: QtBot, tool: str) -> ToolQuestionDialog:
    await type_and_send(qtbot, win, tool)
    await wait_until(lambda: form(win) is not None, timeout=60)
    dialog = form(win)
    assert dialog is not None
    return dialog


def result(win: MainWindow) -> dict[str, object]:
    return [e for e in win.session.state.scrollback if e.kind == Kind.TOOL_RESULT][-1].data


async def answered(win: MainWindow) -> None:
    await wait_until(lambda: kinds(win)[-1] == Kind.ASSISTANT and not win.session.streaming)
    await quiet(win)


def kinds(win: MainWindow) -> list[str]:
    return [e.kind for e in win.session.state.scrollback]


def field(dialog: ToolQuestionDialog, name: str) -> object:
    return next(i for i in dialog.inputs if i.field.name == name)


async def test_the_form_is_built_from_the_schema_checked_answered_and_recorded(
    home: Path, qtbot: QtBot
) -> None:
    win = await opened(home)
    try:
        dialog = await asking(win, qtbot, "faulty__survey")
        assert dialog.windowModality() == Qt.WindowModality.WindowModal
        assert dialog.asker.text() == "The tool server faulty asks:"
        assert dialog.message.text() == "Tell us about yourself"
        assert "faulty asks a question" in win.chrome.announcer.last
        widgets = {i.field.name: i.widget for i in dialog.inputs}
        assert isinstance(widgets["name"], QLineEdit) and widgets["name"].hasFocus()
        assert widgets["name"].accessibleName() == "Your name (required)"
        assert isinstance(widgets["age"], QSpinBox)
        assert isinstance(widgets["subscribe"], QCheckBox)
        assert isinstance(widgets["colour"], QComboBox)
        assert [widgets["colour"].itemText(i) for i in range(4)] == ["—", "Red", "Green", "Blue"]
        assert widgets["height"].accessibleDescription() == "In metres (a number)"
        assert widgets["age"].accessibleDescription() == "A whole number from 0 to 150"
        assert "In metres" in widgets["height"].toolTip()
        labels = [lab.text() for lab in dialog.findChildren(QLabel)]
        assert "Your name *" in labels and "Colour *" in labels and "Email" in labels
        assert dialog.submit.isDefault()
        # Submit (Enter) with the form as it is: what is wrong is said, nothing sent.
        qtbot.keyClick(widgets["name"], Qt.Key.Key_Return)
        assert dialog.isVisible()
        name = field(dialog, "name")
        assert name.problem.isVisible() and name.problem.text() == "It is required."  # type: ignore[attr-defined]
        assert "It is required." in widgets["name"].accessibleDescription()
        widgets["name"].setText("A")
        widgets["email"].setText("not an address")
        dialog.submit.click()
        assert name.problem.text() == "It must have at least 2 characters."  # type: ignore[attr-defined]
        email = field(dialog, "email")
        assert email.problem.text() == "It must be an email address."  # type: ignore[attr-defined]
        assert not field(dialog, "toppings").problem.isVisible()  # type: ignore[attr-defined]
        assert field(dialog, "colour").problem.text() == "It is required."  # type: ignore[attr-defined]
        assert dialog.isVisible() and not result_events(win)
        # Filled in properly, with the keyboard where it can be.
        widgets["name"].setText("Ada")
        widgets["email"].setText("ada@example.org")
        widgets["age"].setValue(36)
        widgets["subscribe"].setChecked(True)
        widgets["colour"].setCurrentIndex(widgets["colour"].findData("green"))
        toppings = field(dialog, "toppings").boxes  # type: ignore[attr-defined]
        toppings[2][1].setChecked(True)
        qtbot.keyClick(widgets["name"], Qt.Key.Key_Return)
        await answered(win)
        data = result(win)
        content = {
            "name": "Ada",
            "email": "ada@example.org",
            "age": 36,
            "subscribe": True,
            "colour": "green",
            "toppings": ["basil"],
        }
        assert json.loads(str(data["output"])) == {"action": "accept", "content": content}
        [question] = data["questions"]  # type: ignore[misc]
        assert question["message"] == "Tell us about yourself"
        assert question["action"] == "accept" and question["content"] == content
        assert question["schema"]["required"] == ["name", "colour"]
        said = (
            'Asked: "Tell us about yourself" → answered: name = Ada; email = ada@example.org;'
            " age = 36; subscribe = true; colour = green; toppings = basil"
        )
        texts = win.scrollback.item_texts()
        assert any(t.startswith(said) for t in texts)
        live = texts
    finally:
        await closed(win)
    again = await opened(home)  # replayed after a restart: the same words
    try:
        assert again.scrollback.item_texts() == live
    finally:
        await closed(again)


def result_events(win: MainWindow) -> list[object]:
    return [e for e in win.session.state.scrollback if e.kind == Kind.TOOL_RESULT]


async def test_declined_and_escape_cancels(home: Path, qtbot: QtBot) -> None:
    win = await opened(home)
    try:
        dialog = await asking(win, qtbot, "faulty__insist")
        dialog.decline.click()
        await answered(win)
        assert result(win)["output"] == "went on with no colour after decline"
        assert any('Asked: "Pick a colour" → declined' in t for t in win.scrollback.item_texts())
        dialog = await asking(win, qtbot, "faulty__insist")
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        await answered(win)
        assert result(win)["output"] == "went on with no colour after cancel"
        assert result(win)["questions"] == [  # type: ignore[comparison-overlap]
            {"message": "Pick a colour", "action": "cancel", "schema": dialog.question.schema}
        ]
        assert any('Asked: "Pick a colour" → cancelled' in t for t in win.scrollback.item_texts())
    finally:
        await closed(win)


async def test_stop_during_the_question_closes_it_and_cancels_the_call(
    home: Path, qtbot: QtBot
) -> None:
    win = await opened(home)
    try:
        await asking(win, qtbot, "faulty__insist")
        win.stop_button.click()
        await wait_until(lambda: form(win) is None and not win.session.streaming)
        await quiet(win)
        data = result(win)
        assert (data["output"], data["success"]) == ("Cancelled", False)
        questions = data["questions"]
        assert [q["action"] for q in questions] == ["cancel"]  # type: ignore[attr-defined]
        assert win.status_stream.text() == "Ready"
    finally:
        await closed(win)


async def test_hostile_text_in_the_question_stays_plain(home: Path, qtbot: QtBot) -> None:
    win = await opened(home)
    try:
        dialog = await asking(win, qtbot, "faulty__hostile_question")
        assert dialog.message.textFormat() == Qt.TextFormat.PlainText
        assert dialog.message.text().startswith("<h1>Big</h1> ")
        assert "\x1b" not in dialog.message.text() and "\x07" not in dialog.message.text()
        label = next(
            lab for lab in dialog.findChildren(QLabel) if lab.text().startswith("<b>Bold</b>")
        )
        assert label.textFormat() == Qt.TextFormat.PlainText and "\x1b" not in label.text()
        [made] = dialog.inputs
        assert made.widget.toolTip().startswith("<p")  # escaped: the markup shows as text
        assert "&lt;img src=" in made.widget.toolTip()
        combo = made.widget
        assert isinstance(combo, QComboBox) and combo.itemText(1) == "<i>one</i>"
        combo.setCurrentIndex(1)
        dialog.submit.click()
        await answered(win)
        assert json.loads(str(result(win)["output"]))["content"] == {"pick": "<i>one</i>"}
        shown = next(t for t in win.scrollback.item_texts() if t.startswith("Asked:"))
        assert shown.startswith('Asked: "<h1>Big</h1> ')
        assert "→ answered: pick = <i>one</i>" in shown
    finally:
        await closed(win)


async def test_server_everything_form_is_answered_in_the_window(home: Path, qtbot: QtBot) -> None:
    win = await opened(home)
    try:
        dialog = await asking(win, qtbot, "everything__trigger-elicitation-request")
        widgets = {i.field.name: i.widget for i in dialog.inputs}
        assert widgets["firstLine"].text() == "It was a dark and stormy night."  # defaults
        assert widgets["integer"].value() == 42
        hero = widgets["titledSingleSelectEnum"]
        assert hero.currentText() == "Superman" and hero.currentData() == "hero-1"
        widgets["name"].setText("Ada Lovelace")
        dialog.submit.click()
        await answered(win)
        output = str(result(win)["output"])
        assert "User provided the requested information" in output
        assert "- Name: Ada Lovelace" in output and "- Favorite Integer: 42" in output
    finally:
        await closed(win)


def test_url_mode_opens_the_address_only_when_it_is_a_web_page(qtbot: QtBot) -> None:
    opened_urls: list[str] = []
    question = Question("auth", "Sign in to continue", {}, "https://example.org/sign-in")
    dialog = ToolQuestionDialog(question, opener=lambda url: opened_urls.append(url.toString()))
    qtbot.addWidget(dialog)
    assert dialog.address.text() == "https://example.org/sign-in"
    assert dialog.submit.text() == "Open" and dialog.submit.isEnabled() and not dialog.inputs
    dialog.submit.click()
    assert opened_urls == ["https://example.org/sign-in"]
    assert dialog.answer == Answer(ACCEPT)
    other = ToolQuestionDialog(Question("auth", "Run this", {}, "file:///etc/passwd"))
    qtbot.addWidget(other)
    assert not other.submit.isEnabled()  # shown, not opened: Decline or Cancel
    other.decline.click()
    assert other.answer == Answer(DECLINE)

"""One error, said once, in the window's words (issue 10, item 7): a failure is told by
its error card only: the banner only for "no server configured/reachable at start-up"
(and it steps aside once a card says it), the status bar only the short state "Failed",
the feedback line not at all. The advice names the window's controls, never the command
line's flags, commands or config file sections."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ikgui.domain.errors import ProviderError
from ikgui.domain.events import Kind
from ikgui.domain.text.advice import Advice
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer
from tests.ui.test_window import (
    closed,
    opened,
    reply,
    settle,
    type_and_send,
    window,
    write_config,
)

__all__ = ["closed_url", "window", "wire_server", "wire_server_session"]

#: What the command line says and the window never does.
CLI_WORDS = ("keys set", "`", "config.toml", "[providers", "-p)", "/model", "[limits]")


def card(win: MainWindow) -> str:
    """The whole text of the newest error card (its heading and its sentence)."""
    [error] = [e for e in win.session.state.scrollback if e.kind == Kind.ERROR][-1:]
    frame = win.scrollback.item_frame(error.id)
    assert frame is not None
    cursor = frame.firstCursorPosition()
    cursor.setPosition(frame.lastPosition(), cursor.MoveMode.KeepAnchor)
    return cursor.selection().toPlainText()


def widgets(win: MainWindow) -> dict[str, str]:
    """What each place that could tell a failure shows now."""
    return {
        "banner": win.banner.text(),
        "card": card(win),
        "feedback": win.feedback.text() if win.feedback.isVisible() else "",
        "status message": win.statusBar().currentMessage(),
        "status": win.status_stream.text(),
    }


def said_once(win: MainWindow, words: str) -> dict[str, str]:
    """Check that ``words`` appear in the card and nowhere else; return the widgets."""
    shown = widgets(win)
    saying = [place for place, text in shown.items() if words in text]
    assert saying == ["card"], shown
    assert shown["card"].count(words) == 1, shown["card"]
    assert not shown["feedback"], shown
    assert shown["status"] == "Failed"
    for place, text in shown.items():
        assert not any(cli in text for cli in CLI_WORDS), (place, text)
    return shown


@pytest.mark.parametrize(
    ("status", "words", "heading", "not_said"),
    [
        (500, "The server had an internal error (500)", "server error", "overloaded"),
        (503, "is unavailable or overloaded (HTTP 503: boom)", "overloaded", "internal error"),
        (401, "Open Settings → Providers → API key to set it.", "API key", "overloaded"),
    ],
)
async def test_a_failed_reply_is_said_once_by_its_card(
    window: MainWindow,
    wire_server: WireServer,
    qtbot: QtBot,
    status: int,
    words: str,
    heading: str,
    not_said: str,
) -> None:
    wire_server.route("/v1/chat/completions", Reply.error(status, "boom"))
    await type_and_send(qtbot, window, "hello")
    await settle(window)
    shown = said_once(window, words)
    assert shown["card"].startswith(f"Error  {heading}\n"), shown["card"]
    assert not_said not in shown["card"]
    # The command line's wording stays in the log (``conv show`` reads it as before).
    [error] = [e for e in window.session.state.scrollback if e.kind == Kind.ERROR]
    if status == 401:
        assert error.content.endswith("Set it with `ikgui keys set local`.")


async def test_no_server_at_start_up_is_the_banner_until_a_card_says_it(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, closed_url)
    win = await opened(home, check_timeout=3.0)
    try:
        assert "Could not connect" in win.banner.text()
        assert "Settings → Providers → Base URL" in win.banner.text()
        assert not any(cli in win.banner.text() for cli in CLI_WORDS)
        assert win.status_stream.text() == "Ready"
        await type_and_send(qtbot, win, "hello?")
        await settle(win)
        said_once(win, f"Could not connect to {closed_url}/v1.")
        assert not win.banner.isVisible()
    finally:
        await closed(win)


async def test_no_ollama_at_start_up_says_ollama_serve(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    """Issue 20 (wording): the banner for an Ollama that does not answer says how to
    start it, as the README promises."""
    home = tmp_path / "home"
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        f'[providers.ollama]\nkind = "ollama"\nbase_url = "{closed_url}"\n', "utf-8"
    )
    win = await opened(home, check_timeout=3.0)
    try:
        banner = win.banner.text()
        assert win.banner.isVisible()
        assert f"Could not connect to Ollama at {closed_url}." in banner
        assert '"ollama serve"' in banner and "Settings → Providers → Base URL" in banner
        assert not any(cli in banner for cli in CLI_WORDS)
    finally:
        await closed(win)


async def test_no_provider_configured_says_where_to_add_one(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    """A conversation kept the provider "work", which config.toml no longer has."""
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    config = home / "config.toml"
    config.write_text(config.read_text().replace("local", "work"))
    first = await opened(home)
    wire_server.route("/v1/chat/completions", reply("hi"))
    await type_and_send(qtbot, first, "hello")
    await settle(first)
    await closed(first)
    config.write_text(config.read_text().replace("work", "local"))
    win = await opened(home)
    try:
        assert win.session.provider == "work"
        assert win.banner.text().startswith(
            "The provider 'work' is not configured. Add it in Settings → Providers"
        )
        await type_and_send(qtbot, win, "hello?")
        await settle(win)
        shown = said_once(win, "The provider 'work' is not configured.")
        assert "Add it in Settings → Providers" in shown["card"]
        assert shown["card"].startswith("Error  setup\n")
        assert not win.banner.isVisible()
    finally:
        await closed(win)


async def test_a_failure_without_a_card_is_said_on_the_feedback_line(
    window: MainWindow,
) -> None:
    """A provider failure that recorded no card (none does today; the rule holds for
    the next) is said by the line under the transcript, in the window's words."""
    error = ProviderError(
        "The provider 'nope' is not configured.",
        "config",
        advice=Advice("configure_provider", {"provider": "nope"}),
    )

    async def failing() -> str:
        raise error

    await window.runner._perform(failing, None)
    text = window.feedback.text()
    assert text == error.window_text and "Settings → Providers" in text
    assert not any(cli in text for cli in CLI_WORDS)
    assert "not configured" not in window.statusBar().currentMessage()
    assert window.status_stream.text() == "Ready"

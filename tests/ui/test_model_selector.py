"""Providers and the model selector on the real window, against real HTTP servers
(issue 20, items 1 and 2): a provider added in Settings answers the first message; the
selector lists models grouped by provider, moves the open conversation to the pair
chosen (Retry and a restart follow it), and is never stale nor wrong about which
provider lists which model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from ikgui.app.root import build_window
from ikgui.domain.events import Kind
from ikgui.domain.state.catalog import LOADING, UNAVAILABLE
from ikgui.ui.window.main_window import MainWindow
from ikgui.ui.window.model_box import ModelBox
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.memkeyring import MemoryKeyring
from tests.support.wire_server import Reply, WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_actions_window import card_of
from tests.ui.test_window import closed, opened, quiet, reply, settle, texts, type_and_send

__all__ = ["closed_url", "wire_server", "wire_server_session"]

OLLAMA_MODELS = ["llama3.2", "qwen2.5"]
LOCAL_MODELS = ["mock-mini", "mock-gpt"]


def two_providers(home: Path, ollama_url: str, local_url: str, default: str = "ollama") -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"""
[defaults]
provider = "{default}"

[providers.ollama]
kind = "ollama"
base_url = "{ollama_url}"

[providers.local]
kind = "openai"
base_url = "{local_url}/v1"
""",
        encoding="utf-8",
    )


def serve_lists(server: WireServer) -> None:
    """One server speaks both wire formats, each with its own list of models."""
    tags = {"models": [{"name": m, "model": m} for m in OLLAMA_MODELS]}
    server.route("/api/tags", Reply.json(tags), method="GET")
    listed = {"object": "list", "data": [{"id": m} for m in LOCAL_MODELS]}
    server.route("/v1/models", Reply.json(listed), method="GET")


def selector(win: MainWindow) -> ModelBox:
    return win.toolbar_actions.model_selector


def grouped(win: MainWindow) -> dict[str, list[str]]:
    """What the selector lists: each provider's heading and the models under it."""
    box = selector(win)
    groups: dict[str, list[str]] = {name: [] for name in box.headings()}
    for provider, model in box.choices():
        groups[provider].append(model)
    return groups


async def choose(qtbot: QtBot, win: MainWindow, provider: str, model: str) -> None:
    """Pick ``provider``'s ``model`` in the selector, as the keyboard does (the arrows
    skip the provider headings)."""
    box = selector(win)
    win.resize(1400, 900)  # the whole toolbar shows
    win.activateWindow()
    box.setFocus(Qt.FocusReason.ShortcutFocusReason)
    target = box.index_of(provider, model)
    assert target >= 0, (provider, model, grouped(win))
    for _ in range(box.count()):
        if box.currentIndex() == target:
            break
        key = Qt.Key.Key_Down if box.currentIndex() < target else Qt.Key.Key_Up
        qtbot.keyClick(box, key)
    assert box.choice(box.currentIndex()) == (provider, model)
    await settle(win)


def ikgui_cli(home: Path, *args: str) -> str:
    env = dict(os.environ, IKGUI_HOME=str(home))
    env.pop("IKGUI_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "ikgui", *args], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# -- item 1 ---------------------------------------------------------------------------
async def test_a_provider_added_in_settings_answers_the_first_message(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    """The issue's journey: a fresh home (Ollama, not running) → Set up a provider → Add
    (OpenAI-compatible, a local URL) → Test connection → General: Provider = it → OK →
    type and Enter: the reply comes from that server, not a "cannot connect"."""
    home = tmp_path / "home"
    win = await opened(home, check_timeout=1.0)
    try:
        assert win.session.provider == "ollama"
        win.welcome.setup_button.click()
        dialog = win.settings_dialog
        page = dialog.providers_page
        page.editor.add_button.click()
        page.name_edit.selectAll()
        qtbot.keyClicks(page.name_edit, "lan")
        page.kind_combo.setCurrentIndex(page.kind_combo.findData("openai"))
        page.kind_combo.activated.emit(page.kind_combo.currentIndex())
        page.url_edit.selectAll()
        qtbot.keyClicks(page.url_edit, f"{wire_server.url}/v1")
        page.test_button.click()
        await wait_until(lambda: page.test_result.text().startswith("Connected"))
        dialog.open_page("general")
        general = dialog.general_page
        general.provider_combo.setCurrentIndex(general.provider_combo.findText("lan"))
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        await settle(win)

        # the open (empty) conversation takes the new default, and the selector says so
        assert win.session.provider == "lan"
        assert grouped(win)["lan"] == ["tiny", "mock-gpt"]  # the server's list
        assert selector(win).shown_text() == "lan · tiny"  # what the send will use
        assert win.status_model.text() == "lan · tiny"  # the status bar agrees
        wire_server.route("/v1/chat/completions", reply("hello from lan"))
        await type_and_send(qtbot, win, "hello")
        await settle(win)
        assert texts(win)[-2:] == ["hello", "hello from lan"]
        assert wire_server.requests[-1].path == "/v1/chat/completions"
        stored = win.store.get_conversation(win.current_id)
        assert stored is not None and stored.provider == "lan"
    finally:
        await closed(win)


async def test_a_conversation_stuck_on_a_dead_provider_moves_and_retries(
    tmp_path: Path, wire_server: WireServer, closed_url: str, qtbot: QtBot
) -> None:
    """Ollama is not running: the first send fails. The selector lists the other
    provider's models under it; choosing one moves the conversation (recorded, so the
    restart, ``ikgui conv show`` and ``conv context`` agree) and Retry goes there."""
    home = tmp_path / "home"
    two_providers(home, closed_url, wire_server.url)
    serve_lists(wire_server)
    win = await opened(home, check_timeout=1.0)
    try:
        await type_and_send(qtbot, win, "hello?")
        await settle(win)
        error = win.session.state.scrollback[-1]
        assert error.kind == Kind.ERROR and "Could not connect" in error.content
        assert grouped(win) == {"ollama": [], "local": LOCAL_MODELS}
        assert selector(win).notes("ollama") == [UNAVAILABLE]
        assert selector(win).isEnabled()

        await choose(qtbot, win, "local", "mock-gpt")
        assert (win.session.provider, win.session.model) == ("local", "mock-gpt")
        assert selector(win).shown_text() == "local · mock-gpt"
        assert win.status_model.text() == "local · mock-gpt"
        # (the arrows choose as they go: to local's first model, then the next one)
        moves = [e for e in win.store.events(win.current_id) if e.kind == Kind.COMMAND]
        assert [e.data["input"] for e in moves] == ["/model local/mock-mini", "/model mock-gpt"]

        wire_server.route("/v1/chat/completions", reply("local at your service"))
        card = await card_of(win, error.id)
        qtbot.mouseClick(card.buttons()["rowRetry"], Qt.MouseButton.LeftButton)
        await settle(win)
        assert texts(win)[-1] == "local at your service"
        sent = wire_server.bodies("/v1/chat/completions")[-1]
        assert sent["model"] == "mock-gpt" and sent["messages"][-1]["content"] == "hello?"
        conv = win.current_id
    finally:
        await closed(win)

    shown = json.loads(ikgui_cli(home, "conv", "show", conv, "--json"))
    context = json.loads(ikgui_cli(home, "conv", "context", conv, "--json"))
    assert (shown["provider"], shown["model"]) == ("local", "mock-gpt")
    assert (context["provider"], context["model"]) == ("local", "mock-gpt")
    assert "model mock-gpt (local)" in ikgui_cli(home, "conv", "show", conv).splitlines()[1]

    again = await opened(home, check_timeout=1.0)
    try:
        assert again.current_id == conv
        assert (again.session.provider, again.session.model) == ("local", "mock-gpt")
        assert selector(again).shown_text() == "local · mock-gpt"
        # typed, too: /model provider/model, and plain /model name under its provider
        await type_and_send(qtbot, again, "/model local/mock-mini")
        await settle(again)
        assert (again.session.provider, again.session.model) == ("local", "mock-mini")
        await type_and_send(qtbot, again, "/model mock-gpt")
        await settle(again)
        assert (again.session.provider, again.session.model) == ("local", "mock-gpt")
    finally:
        await closed(again)


async def test_moving_away_from_a_dead_server_retires_its_banner(
    tmp_path: Path, wire_server: WireServer, closed_url: str, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    two_providers(home, closed_url, wire_server.url)
    serve_lists(wire_server)
    win = await opened(home, check_timeout=1.0)
    try:
        assert win.banner.isVisible() and "Could not connect" in win.banner.text()
        await choose(qtbot, win, "local", "mock-mini")
        assert win.session.provider == "local" and not win.banner.isVisible()
        wire_server.route("/v1/chat/completions", reply("sent at once"))
        await type_and_send(qtbot, win, "hi")
        await settle(win)
        assert texts(win)[-2:] == ["hi", "sent at once"]
    finally:
        await closed(win)


# -- item 2 ---------------------------------------------------------------------------
async def test_each_conversation_s_selector_lists_models_under_their_own_provider(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    """After a restart, an Ollama conversation must not be offered the other provider's
    models as its own (the issue's impossible "ollama · mock-mini")."""
    home = tmp_path / "home"
    two_providers(home, wire_server.url, wire_server.url, default="ollama")
    serve_lists(wire_server)
    wire_server.replay("lightrag-ollama-chat-stream.ndjson")
    first = await opened(home)
    try:
        await type_and_send(qtbot, first, "on ollama")
        await settle(first)
        on_ollama = first.current_id
        first.toolbar_actions["actionNew"].trigger()
        await settle(first)
        await choose(qtbot, first, "local", "mock-mini")
        on_local = first.current_id
        assert on_local != on_ollama
    finally:
        await closed(first)

    win = await opened(home)  # restarts on the local conversation
    try:
        assert win.current_id == on_local
        assert grouped(win) == {"ollama": OLLAMA_MODELS, "local": LOCAL_MODELS}
        assert selector(win).shown_text() == "local · mock-mini"
        win.open_conversation(on_ollama)
        await settle(win)
        assert win.session.provider == "ollama"
        assert selector(win).shown_text() == f"ollama · {OLLAMA_MODELS[0]}"
        assert selector(win).choice(selector(win).currentIndex()) == ("ollama", OLLAMA_MODELS[0])
        # picking mock-mini here moves this conversation to local, with it
        await choose(qtbot, win, "local", "mock-mini")
        assert (win.session.provider, win.session.model) == ("local", "mock-mini")
        assert win.status_model.text() == "local · mock-mini"
    finally:
        await closed(win)


async def test_the_selector_follows_settings_and_model_lists(
    tmp_path: Path, wire_server: WireServer, closed_url: str, qtbot: QtBot
) -> None:
    """Providers added, renamed and removed in Settings show at once; a list that could
    not be fetched says so and is asked again; a list that changes on the server shows
    when the selector opens."""
    home = tmp_path / "home"
    two_providers(home, closed_url, wire_server.url, default="local")
    serve_lists(wire_server)
    win = await opened(home, check_timeout=1.0)
    try:
        assert grouped(win) == {"ollama": [], "local": LOCAL_MODELS}
        assert selector(win).notes("ollama") == [UNAVAILABLE]
        assert selector(win).shown_text() == "local · mock-mini"

        # Settings: ollama now points at a server that answers, and a provider is added
        dialog = win.open_settings("providers")
        page = dialog.providers_page
        assert page.select("ollama")
        page.url_edit.selectAll()
        qtbot.keyClicks(page.url_edit, wire_server.url)
        page.editor.add_button.click()
        page.name_edit.selectAll()
        qtbot.keyClicks(page.name_edit, "spare")
        page.kind_combo.setCurrentIndex(page.kind_combo.findData("openai"))
        page.kind_combo.activated.emit(page.kind_combo.currentIndex())
        page.url_edit.selectAll()
        qtbot.keyClicks(page.url_edit, f"{wire_server.url}/v1")
        dialog.save()
        await settle(win)
        assert grouped(win) == {
            "ollama": OLLAMA_MODELS,
            "local": LOCAL_MODELS,
            "spare": LOCAL_MODELS,
        }

        # renamed and removed: the headings follow, the open conversation keeps its model
        dialog = win.open_settings("providers")
        page = dialog.providers_page
        assert page.select("spare")
        page.name_edit.selectAll()
        qtbot.keyClicks(page.name_edit, "backup")
        assert page.select("ollama")
        page.editor.remove_button.click()
        dialog.save()
        # (a renamed provider's key moves from a worker thread first: the keyring may be slow)
        await wait_until(lambda: "backup" in win.session.settings.providers)
        await settle(win)
        assert selector(win).headings() == ["local", "backup"]
        assert selector(win).shown_text() == "local · mock-mini"

        # the server lists a new model: opening the selector asks again
        listed = {"object": "list", "data": [{"id": m} for m in [*LOCAL_MODELS, "mock-new"]]}
        wire_server.route("/v1/models", Reply.json(listed), method="GET")
        selector(win).showPopup()
        await wait_until(lambda: "mock-new" in grouped(win)["local"])
        selector(win).hidePopup()
        await settle(win)
        assert grouped(win)["backup"] == [*LOCAL_MODELS, "mock-new"]
        assert selector(win).shown_text() == "local · mock-mini"
    finally:
        await closed(win)


async def test_a_provider_that_does_not_answer_never_blocks_the_window(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    """A server that never answers its model list: the other providers are listed, the
    window sends meanwhile, and the hung one says it is being asked, then unavailable."""
    home = tmp_path / "home"
    hung_url = f"{wire_server.url}/hung"
    two_providers(home, hung_url, wire_server.url, default="local")
    serve_lists(wire_server)
    wire_server.route("/hung/api/tags", Reply(fault="hang"), method="GET")
    win = build_window(home, check_timeout=60.0)  # (not ``opened``: it waits for the lists)
    win.show()
    try:
        await wait_until(lambda: grouped(win).get("local") == LOCAL_MODELS)
        assert grouped(win)["ollama"] == []
        assert selector(win).notes("ollama") == [LOADING]
        wire_server.route("/v1/chat/completions", reply("not blocked"))
        await type_and_send(qtbot, win, "are you there?")
        await wait_until(lambda: texts(win)[-1:] == ["not blocked"])
        assert selector(win).notes("ollama") == [LOADING]  # still asking, still usable
        wire_server.reset()  # the hung request ends: its list is unavailable
        serve_lists(wire_server)
        await wait_until(lambda: selector(win).notes("ollama") == [UNAVAILABLE])
        await quiet(win)
    finally:
        await closed(win)

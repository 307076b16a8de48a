"""The Settings dialog: editing and saving, validation, keys into the keyring (never the
config), and "Test connection" running on the qasync loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import keyring
import pytest
import shiboken6
from keyring.backend import KeyringBackend
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QLineEdit, QTableWidgetItem
from pytestqt.qtbot import QtBot

from ikgui.config.loading import load_settings, save_settings
from ikgui.domain.errors import ProviderError
from ikgui.domain.settings import AgentSettings, Price, ProviderSettings, Settings
from ikgui.local.keys import KeyStore
from ikgui.ui.settings.dialog import SettingsDialog
from tests.support.memkeyring import MemoryKeyring
from tests.ui.conftest import wait_until

CONNECT_ERROR = "Could not connect to Ollama at http://localhost:11434…"

TestConnection = Callable[[ProviderSettings, str | None], object]


@pytest.fixture
def keep_loop_running() -> Iterator[None]:
    """Closing the only window would quit the app and stop the shared qasync loop."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    previous = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)
    try:
        yield
    finally:
        app.setQuitOnLastWindowClosed(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous: KeyringBackend = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)


def sample_settings() -> Settings:
    return Settings(
        default_provider="ollama",
        default_agent="coder",
        providers={
            "ollama": ProviderSettings("ollama", "ollama", "http://localhost:11434"),
            "router": ProviderSettings(
                "router", "openai", "https://openrouter.ai/api/v1", "ROUTER_KEY"
            ),
        },
        agents={
            "coder": AgentSettings("coder", "Be careful.\nSay so.", "router", "gpt-4o-mini"),
            "painter": AgentSettings("painter", None, None, None, "json"),
        },
        prices={"gpt-4o-mini": Price(0.15, 0.6), "meta/llama-3.1:8b": Price(0.0, 0.0)},
    )


async def never_called(provider: ProviderSettings, key: str | None) -> list[str]:
    raise AssertionError("test_connection was not expected")


#: Dialogs a test made without a parent, deleted when it ends (see delete_dialogs).
owned_dialogs: list[SettingsDialog] = []


@pytest.fixture(autouse=True)
def delete_dialogs() -> Iterator[None]:
    """Delete each parentless dialog a test made as the test ends. Left to the garbage
    collector (qtbot.addWidget's deleteLater is not run by processEvents), a finished
    test's dialog was deleted whenever a collection happened to run, once in the middle
    of the next test's paint event, and the process crashed."""
    yield
    while owned_dialogs:
        dialog = owned_dialogs.pop()
        dialog.close()
        shiboken6.delete(dialog)


class Harness:
    def __init__(self, qtbot: QtBot, keys: KeyStore, test_connection: object = never_called):
        self.saved: list[Settings] = []
        self.emitted: list[Settings] = []
        self.dialog = SettingsDialog(
            sample_settings(),
            keys,
            test_connection,  # type: ignore[arg-type]
            self.saved.append,
        )
        self.dialog.settings_saved.connect(self.emitted.append)
        owned_dialogs.append(self.dialog)
        self.dialog.show()
        self.qtbot = qtbot

    def type_into(self, edit: QLineEdit, text: str) -> None:
        edit.setFocus()
        edit.selectAll()
        if text:
            self.qtbot.keyClicks(edit, text)
        else:
            self.qtbot.keyClick(edit, Qt.Key.Key_Delete)

    def ok(self) -> None:
        self.dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        self.answered()  # (OK stores the keys from a worker thread)

    def answered(self) -> None:
        """Wait until the key store answered what the dialog asked it (off this thread)."""
        calls = self.dialog.providers_page.key_calls
        self.qtbot.waitUntil(lambda: calls.pending == 0)

    @property
    def providers(self):  # type: ignore[no-untyped-def]
        return self.dialog.providers_page


def test_edit_a_provider_url_and_save(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    h.dialog.open_page("providers", "ollama")
    h.type_into(h.providers.url_edit, "http://gpu-box:11434/")
    h.ok()
    assert len(h.saved) == 1
    saved = h.saved[0]
    assert saved.providers["ollama"].base_url == "http://gpu-box:11434"
    assert saved.providers["router"] == sample_settings().providers["router"]
    assert saved.agents == sample_settings().agents
    assert saved.prices == sample_settings().prices
    assert saved.default_agent == "coder"
    assert h.emitted == [saved]
    assert h.dialog.result() == QDialog.DialogCode.Accepted


def test_an_invalid_url_is_refused_with_a_visible_message(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    h = Harness(qtbot, KeyStore())
    h.dialog.open_page("providers", "router")
    h.type_into(h.providers.url_edit, "openrouter.ai/api/v1")
    assert h.providers.url_error.isVisible()
    assert "http:// or https://" in h.providers.url_error.text()
    h.dialog.open_page("general")
    h.ok()
    assert h.saved == [] and h.emitted == []
    assert h.dialog.isVisible()
    assert h.dialog.current_page() == "providers"
    assert h.providers.current is not None and h.providers.current.name == "router"
    assert h.dialog.error_label.isVisible()
    assert h.dialog.error_label.text() == (
        "Provider “router”: the base URL must start with http:// or https://."
    )


def test_cancel_discards_everything(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    keys = KeyStore()
    h = Harness(qtbot, keys)
    h.type_into(h.providers.url_edit, "http://elsewhere:1")
    h.type_into(h.providers.key_edit, "sk-never")
    h.dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert h.saved == [] and h.emitted == []
    assert memory_keyring.secrets == {}
    assert h.dialog.result() == QDialog.DialogCode.Rejected


def test_a_typed_key_goes_to_the_keyring_not_the_settings(
    qtbot: QtBot, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    keys = KeyStore()
    h = Harness(qtbot, keys)
    h.dialog.open_page("providers", "router")
    assert h.providers.key_edit.echoMode() == QLineEdit.EchoMode.Password
    h.type_into(h.providers.key_edit, "sk-or-v1-secret")
    assert "when you press OK" in h.providers.key_status.text()
    h.ok()
    assert memory_keyring.secrets == {("ikgui", "router"): "sk-or-v1-secret"}
    assert "sk-or-v1-secret" not in repr(h.saved[0])
    path = tmp_path / "config.toml"
    save_settings(h.saved[0], path)
    assert "sk-or-v1-secret" not in path.read_text("utf-8")
    assert load_settings(path) == h.saved[0]


def test_key_status_and_forgetting_a_key(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    keys = KeyStore()
    keys.set("router", "sk-old")
    h = Harness(qtbot, keys)
    h.dialog.open_page("providers", "router")
    h.answered()
    assert "stored in the system keyring" in h.providers.key_status.text()
    assert h.providers.forget_button.isEnabled()
    h.providers.forget_button.click()
    assert "removed when you press OK" in h.providers.key_status.text()
    assert keys.get("router") == "sk-old"  # nothing happens before OK
    h.ok()
    assert keys.get("router") is None


def test_renaming_a_provider_follows_through(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    keys = KeyStore()
    keys.set("router", "sk-moved")
    h = Harness(qtbot, keys)
    h.dialog.open_page("general")
    h.dialog.general_page.provider_combo.setCurrentIndex(1)
    h.dialog.open_page("providers", "router")
    h.type_into(h.providers.name_edit, "openrouter")
    assert h.providers.editor.list.currentItem().text() == "openrouter"
    h.ok()
    saved = h.saved[0]
    assert set(saved.providers) == {"ollama", "openrouter"}
    assert saved.providers["openrouter"].name == "openrouter"
    assert saved.agents["coder"].provider == "openrouter"
    assert saved.default_provider == "openrouter"
    assert memory_keyring.secrets == {("ikgui", "openrouter"): "sk-moved"}


def test_duplicate_or_empty_names_are_refused(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    h.dialog.open_page("providers", "router")
    h.type_into(h.providers.name_edit, "ollama")
    assert h.providers.name_edit.property("invalid") is True
    h.ok()
    assert h.saved == []
    assert "two providers named “ollama”" in h.dialog.error_label.text()
    h.type_into(h.providers.name_edit, "")
    h.ok()
    assert h.saved == []
    assert h.dialog.error_label.text() == "Every provider needs a name."


def test_add_and_remove_a_provider(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    h.providers.editor.add_button.click()
    h.type_into(h.providers.name_edit, "claude")
    h.providers.kind_combo.setCurrentIndex(h.providers.kind_combo.findData("anthropic"))
    h.providers.kind_combo.activated.emit(h.providers.kind_combo.currentIndex())
    assert h.providers.url_edit.text() == "https://api.anthropic.com"
    h.type_into(h.providers.env_edit, "ANTHROPIC_API_KEY")
    h.dialog.open_page("providers", "ollama")
    h.providers.editor.remove_button.click()
    h.ok()
    providers = h.saved[0].providers
    assert providers == {
        "router": sample_settings().providers["router"],
        "claude": ProviderSettings(
            "claude", "anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY"
        ),
    }
    assert h.saved[0].default_provider == "router"  # the removed default fell back


def test_no_keyring_shows_the_session_only_notice(qtbot: QtBot, no_keyring: None) -> None:
    keys = KeyStore()
    assert not keys.available
    h = Harness(qtbot, keys)
    assert h.providers.notice.isVisible()
    assert "kept for this session only" in h.providers.notice.text()
    h.dialog.open_page("providers", "ollama")
    h.type_into(h.providers.key_edit, "sk-session")
    assert "kept for this session only when you press OK" in h.providers.key_status.text()
    h.ok()
    assert keys.get("ollama") == "sk-session"
    assert keys.status("ollama") == "kept for this session only"


def test_the_notice_is_hidden_with_a_keyring(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    assert not h.providers.notice.isVisible()


def test_add_and_remove_an_agent(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    page = h.dialog.agents_page
    h.dialog.open_page("agents")
    page.editor.list.setCurrentRow(1)  # painter
    page.editor.remove_button.click()
    page.editor.add_button.click()
    h.type_into(page.name_edit, "writer")
    page.provider_combo.setCurrentIndex(page.provider_combo.findText("ollama"))
    page.provider_combo.activated.emit(page.provider_combo.currentIndex())
    h.type_into(page.model_edit, "llama3.2")
    page.mode_combo.setCurrentIndex(page.mode_combo.findData("line"))
    page.mode_combo.activated.emit(page.mode_combo.currentIndex())
    page.prompt_edit.setFocus()
    qtbot.keyClicks(page.prompt_edit, 'Write "plainly".')
    h.ok()
    agents = h.saved[0].agents
    assert agents == {
        "coder": sample_settings().agents["coder"],
        "writer": AgentSettings("writer", 'Write "plainly".', "ollama", "llama3.2", "line"),
    }


def test_an_agent_needs_a_unique_name(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    page = h.dialog.agents_page
    page.editor.add_button.click()
    h.type_into(page.name_edit, "coder")
    h.dialog.open_page("prices")
    h.ok()
    assert h.saved == []
    assert h.dialog.current_page() == "agents"
    assert "two agents named “coder”" in h.dialog.error_label.text()


def test_add_and_remove_a_price(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    page = h.dialog.prices_page
    h.dialog.open_page("prices")
    page.table.selectRow(1)  # meta/llama-3.1:8b
    page.remove_button.click()
    page.add_button.click()
    row = page.table.rowCount() - 1
    page.table.setItem(row, 0, QTableWidgetItem("claude-3-5-haiku"))
    page.table.setItem(row, 1, QTableWidgetItem("0.8"))
    page.table.setItem(row, 2, QTableWidgetItem("4"))
    h.ok()
    assert h.saved[0].prices == {
        "gpt-4o-mini": Price(0.15, 0.6),
        "claude-3-5-haiku": Price(0.8, 4.0),
    }


def test_prices_must_be_numbers_at_least_zero(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    page = h.dialog.prices_page
    page.table.setItem(0, 2, QTableWidgetItem("-1"))
    h.ok()
    assert h.saved == []
    assert h.dialog.current_page() == "prices"
    assert h.dialog.error_label.text() == (
        "Prices, row 1: the output price must be a number ≥ 0, not “-1”."
    )
    page.table.setItem(0, 2, QTableWidgetItem("cheap"))
    h.ok()
    assert "not “cheap”" in h.dialog.error_label.text()
    page.table.setItem(0, 2, QTableWidgetItem("0.6"))
    h.ok()
    assert len(h.saved) == 1


def test_general_defaults_and_theme(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    themes: list[str] = []
    h.dialog.theme_changed.connect(themes.append)
    page = h.dialog.general_page
    assert page.provider_combo.currentText() == "ollama"
    assert page.agent_combo.currentText() == "coder"
    page.agent_combo.setCurrentIndex(page.agent_combo.findText("None"))
    h.type_into(page.model_edit, "qwen2.5")
    page.theme_combo.setCurrentIndex(page.theme_combo.findData("dark"))
    h.ok()
    assert h.saved[0].default_agent is None
    assert h.saved[0].default_model == "qwen2.5"
    assert themes == ["dark"]


def test_open_page_selects_a_provider(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    h = Harness(qtbot, KeyStore())
    h.dialog.open_page("prices")
    assert h.dialog.current_page() == "prices"
    h.dialog.open_page("providers", "router")
    assert h.dialog.current_page() == "providers"
    assert h.providers.name_edit.text() == "router"
    assert h.providers.url_edit.text() == "https://openrouter.ai/api/v1"


@pytest.mark.asyncio(loop_scope="session")
async def test_test_connection_shows_the_models(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    calls: list[tuple[ProviderSettings, str | None]] = []

    async def succeed(provider: ProviderSettings, key: str | None) -> list[str]:
        calls.append((provider, key))
        await asyncio.sleep(0.05)
        return ["llama3.2", "qwen2.5", "mistral", "phi3"]

    h = Harness(qtbot, KeyStore(), succeed)
    h.dialog.open_page("providers", "router")
    h.type_into(h.providers.url_edit, "http://127.0.0.1:8080/v1")
    h.type_into(h.providers.key_edit, "sk-typed")
    h.providers.test_button.click()
    assert h.providers.test_result.text() == "Testing…"
    await wait_until(lambda: h.providers.test_result.text().startswith("Connected"))
    assert h.providers.test_result.text() == "Connected: 4 models (llama3.2, qwen2.5, mistral…)"
    assert calls == [
        (ProviderSettings("router", "openai", "http://127.0.0.1:8080/v1", "ROUTER_KEY"), "sk-typed")
    ]
    assert h.providers.test_button.isEnabled()
    assert memory_keyring.secrets == {}  # testing stores nothing


@pytest.mark.asyncio(loop_scope="session")
async def test_test_connection_shows_the_provider_error(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    async def fail(provider: ProviderSettings, key: str | None) -> list[str]:
        await asyncio.sleep(0)
        raise ProviderError(CONNECT_ERROR, "connect")

    h = Harness(qtbot, KeyStore(), fail)
    h.providers.test_button.click()
    await wait_until(lambda: h.providers.test_result.text() != "Testing…")
    assert h.providers.test_result.text() == CONNECT_ERROR
    assert h.providers.test_result.isVisible()


@pytest.mark.asyncio(loop_scope="session")
async def test_the_dialog_stays_responsive_and_closing_cancels_the_test(
    qtbot: QtBot, memory_keyring: MemoryKeyring, keep_loop_running: None
) -> None:
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def hang(provider: ProviderSettings, key: str | None) -> list[str]:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return []

    h = Harness(qtbot, KeyStore(), hang)
    h.providers.test_button.click()
    await asyncio.wait_for(started.wait(), 5)
    ticks: list[int] = []
    QTimer.singleShot(0, lambda: ticks.append(1))
    await wait_until(lambda: ticks)  # Qt keeps handling events while the test runs
    h.type_into(h.providers.env_edit, "STILL_EDITABLE")
    assert h.providers.testing
    h.dialog.reject()
    await wait_until(lambda: cancelled)
    assert not h.providers.testing


@pytest.mark.asyncio(loop_scope="session")
async def test_selecting_another_provider_cancels_the_test(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def hang(provider: ProviderSettings, key: str | None) -> list[str]:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return []

    h = Harness(qtbot, KeyStore(), hang)
    h.providers.test_button.click()
    await asyncio.wait_for(started.wait(), 5)
    h.dialog.open_page("providers", "router")
    await wait_until(lambda: cancelled)
    assert h.providers.test_result.text() == ""


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("sk-proj-Abc123", "is not a variable name"),
        ("gsk_4f8a9b7c6d5e4f3a2b1c0d9e8f7a", "looks like a key"),
    ],
)
def test_a_key_pasted_as_the_variable_name_is_refused(
    qtbot: QtBot, memory_keyring: MemoryKeyring, text: str, reason: str
) -> None:
    h = Harness(qtbot, KeyStore())
    h.dialog.open_page("providers", "router")
    h.type_into(h.providers.env_edit, text)
    assert h.providers.env_edit.property("invalid") is True
    h.ok()
    assert h.saved == []
    assert reason in h.dialog.error_label.text()
    h.type_into(h.providers.env_edit, "OPENROUTER_API_KEY")
    h.ok()
    assert h.saved[0].providers["router"].api_key_env == "OPENROUTER_API_KEY"


# -- issue 20 item 19: the key field speaks to a window user; presets for new providers --


def test_the_key_field_says_to_paste_the_key_never_a_command(
    qtbot: QtBot, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROUTER_KEY", raising=False)
    h = Harness(qtbot, KeyStore())
    h.dialog.open_page("providers", "router")
    h.answered()
    status = h.providers.key_status.text()
    assert "ikgui keys" not in status and "`" not in status
    assert "Paste it above (the keyring keeps it)" in status
    assert "ROUTER_KEY" in status  # the variable it names still works
    h.dialog.open_page("providers", "ollama")
    h.answered()
    assert "none needed for a local Ollama" in h.providers.key_status.text()


def test_without_a_keyring_the_window_says_so_in_plain_words(
    qtbot: QtBot, no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROUTER_KEY", raising=False)
    h = Harness(qtbot, KeyStore())
    h.dialog.open_page("providers", "router")
    h.answered()
    notice = h.providers.notice.text()
    assert h.providers.notice.isVisible()
    assert "forgotten when ikgui closes" in notice and "password store" in notice
    for cli_words in ("ikgui keys", "config.toml", "api_key_env", "export"):
        assert cli_words not in notice
    status = h.providers.key_status.text()
    assert "ikgui keys" not in status and "kept until ikgui closes" in status


PRESET_FIELDS = {
    "OpenAI": ("openai", "openai", "https://api.openai.com/v1"),
    "Anthropic": ("anthropic", "anthropic", "https://api.anthropic.com"),
    "OpenRouter": ("openrouter", "openai", "https://openrouter.ai/api/v1"),
    "Groq": ("groq", "openai", "https://api.groq.com/openai/v1"),
    "LM Studio": ("lmstudio", "openai", "http://localhost:1234/v1"),
    "Ollama": ("ollama-1", "ollama", "http://localhost:11434"),  # "ollama" is taken
    "llama.cpp": ("llamacpp", "openai", "http://localhost:8080/v1"),
}


def choose_preset(h: Harness, label: str) -> None:
    combo = h.providers.preset_combo
    index = next(i for i in range(combo.count()) if combo.itemText(i).startswith(label))
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def test_a_preset_fills_in_a_new_providers_name_kind_and_url(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    h = Harness(qtbot, KeyStore())
    page = h.providers
    h.dialog.open_page("providers", "router")
    assert not page.preset_combo.isVisible()  # an existing provider keeps its identity
    for label, (name, kind, url) in PRESET_FIELDS.items():
        page.editor.add_button.click()
        assert page.preset_combo.isVisible()
        choose_preset(h, label)
        assert (page.name_edit.text(), page.kind_combo.currentData()) == (name, kind), label
        assert page.url_edit.text() == url and not page.url_error.isVisible()
        assert page.editor.list.currentItem().text() == name
    h.type_into(page.url_edit, "http://gpu-box:8080/v1")  # everything stays editable
    page.editor.add_button.click()
    h.type_into(page.name_edit, "work")
    choose_preset(h, "Groq")  # a name the user typed is theirs
    assert page.name_edit.text() == "work"
    assert page.url_edit.text() == "https://api.groq.com/openai/v1"
    h.ok()
    providers = h.saved[0].providers
    for name, kind, url in PRESET_FIELDS.values():
        if name != "llamacpp":
            assert providers[name] == ProviderSettings(name, kind, url)
    assert providers["llamacpp"].base_url == "http://gpu-box:8080/v1"
    assert providers["work"] == ProviderSettings("work", "openai", PRESET_FIELDS["Groq"][2])
    assert h.dialog.general_page.provider_combo.findText("lmstudio") >= 0


def test_a_providers_auto_title_goes_through_the_dialog(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    settings = sample_settings()
    settings.providers["router"] = replace(settings.providers["router"], auto_title="model")
    saved: list[Settings] = []
    dialog = SettingsDialog(settings, KeyStore(), never_called, saved.append)
    owned_dialogs.append(dialog)
    dialog.show()
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert saved[0].providers == settings.providers

"""The Settings dialog (SPEC §10): providers (URL, key into the keyring, test connection),
agents, prices and general defaults. OK validates, stores typed keys in the
:class:`~ikgui.local.keys.KeyStore` (from a worker thread: the keyring may not answer),
saves through the ``save`` callable and emits ``settings_saved``;
Cancel discards everything. Keys never reach the saved :class:`Settings`.

Open it with ``show()``/``open()``, never ``exec()`` inside a coroutine; a running
"Test connection" is cancelled when the dialog closes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTabWidget, QVBoxLayout, QWidget

from ikgui.domain.settings import Settings
from ikgui.domain.tools import ServerState
from ikgui.local.keys import KeyStore
from ikgui.ui import icons
from ikgui.ui.plain import block
from ikgui.ui.settings.agents import AgentsPage
from ikgui.ui.settings.common import Issue, label, named, set_invalid
from ikgui.ui.settings.general import GeneralPage
from ikgui.ui.settings.prices import PricesPage
from ikgui.ui.settings.providers import ProvidersPage, TestConnection
from ikgui.ui.settings.tools import TestServer, ToolsPage

PAGES = ("providers", "agents", "prices", "tools", "general")


@dataclass(frozen=True)
class _KeyChange:
    """What OK does to one provider's key: ``owner`` is the name it is stored under."""

    owner: str
    name: str
    key: str
    forget: bool


def _store_keys(keys: KeyStore, plan: list[_KeyChange]) -> None:
    """(In a worker thread.)"""
    for change in plan:
        renamed = change.owner != change.name
        if change.forget:
            keys.delete(change.owner)
        elif change.key:
            keys.set(change.name, change.key)
            if renamed:
                keys.delete(change.owner)
        elif renamed:
            # The keyring knows providers by name: move the key along with the name.
            stored = keys.get(change.owner)
            if stored is not None:
                keys.set(change.name, stored)
                keys.delete(change.owner)


class SettingsDialog(QDialog):
    """Edits a copy of the settings; nothing changes until OK."""

    #: OK was pressed and the settings were saved (the new :class:`Settings`).
    settings_saved = Signal(object)
    #: OK was pressed with a different theme (``system``, ``light`` or ``dark``).
    theme_changed = Signal(str)

    def __init__(
        self,
        settings: Settings,
        keys: KeyStore,
        test_connection: TestConnection,
        save: Callable[[Settings], None],
        parent: QWidget | None = None,
        page: str = "providers",
        theme: str = "system",
        store: tuple[str, str | None] | None = None,
        tool_states: Callable[[], list[ServerState]] | None = None,
        test_tool_server: TestServer | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setAccessibleName("Settings")
        self.setWindowTitle("Settings")
        self.setWindowIcon(icons.app_icon())
        self.setSizeGripEnabled(True)
        self.resize(780, 540)
        self._settings = settings
        self._keys = keys
        self._save = save
        self._theme = theme
        self._storing = False

        self._build_pages(settings, keys, test_connection, store, tool_states, test_tool_server)
        self.error_label = label("", "error", "settingsError")
        self.error_label.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(10)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)
        self.open_page(page)

    def _build_pages(
        self,
        settings: Settings,
        keys: KeyStore,
        test_connection: TestConnection,
        store: tuple[str, str | None] | None,
        tool_states: Callable[[], list[ServerState]] | None,
        test_tool_server: TestServer | None,
    ) -> None:
        self.providers_page = ProvidersPage(settings, keys, test_connection)
        self.agents_page = AgentsPage(settings, lambda: self.providers_page.drafts)
        self.prices_page = PricesPage(settings)
        self.tools_page = ToolsPage(settings, tool_states, test_tool_server)
        self.general_page = GeneralPage(
            settings,
            lambda: self.providers_page.drafts,
            lambda: self.agents_page.drafts,
            self._theme,
            store=store,
        )
        self.providers_page.providers_changed.connect(self.agents_page.refresh_providers)
        self.providers_page.providers_changed.connect(self.general_page.refresh_providers)
        self.agents_page.agents_changed.connect(self.general_page.refresh_agents)

        self.tabs = named(QTabWidget(), "settingsTabs", "Settings pages")
        self.tabs.addTab(self.providers_page, "Providers")
        self.tabs.addTab(self.agents_page, "Agents")
        self.tabs.addTab(self.prices_page, "Prices")
        self.tabs.addTab(self.tools_page, "Tools")
        self.tabs.addTab(self.general_page, "General")

    # -- navigation ------------------------------------------------------------------

    def open_page(self, name: str, provider: str | None = None) -> None:
        """Show a page (``providers``, ``agents``, ``prices``, ``general``); on the
        providers page, select ``provider`` by name."""
        if name in PAGES:
            self.tabs.setCurrentIndex(PAGES.index(name))
        if provider is not None:
            self.tabs.setCurrentIndex(0)
            self.providers_page.select(provider)

    def current_page(self) -> str:
        return PAGES[self.tabs.currentIndex()]

    # -- validation and saving ----------------------------------------------------------

    def issues(self) -> list[Issue]:
        return [
            *self.providers_page.issues(),
            *self.agents_page.issues(),
            *self.prices_page.issues(),
            *self.tools_page.issues(),
            *self.general_page.issues(),
        ]

    def _show_issue(self, issue: Issue) -> None:
        self.open_page(issue.page)
        page = self.tabs.currentWidget()
        if issue.row is not None:
            if page is self.providers_page:
                self.providers_page.editor.list.setCurrentRow(issue.row)
            elif page is self.agents_page:
                self.agents_page.editor.list.setCurrentRow(issue.row)
            elif page is self.prices_page:
                self.prices_page.table.selectRow(issue.row)
            elif page is self.tools_page:
                self.tools_page.editor.list.setCurrentRow(issue.row)
        if issue.widget is not None:
            set_invalid(issue.widget, True)
            issue.widget.setFocus()
        self.show_error(issue.message)

    def show_error(self, message: str) -> None:
        self.error_label.setText(block(message))
        self.error_label.setVisible(bool(message))

    def settings(self) -> Settings:
        """The settings as edited (valid only when :meth:`issues` is empty)."""
        before = self._settings
        return Settings(
            default_provider=self.general_page.default_provider(),
            default_model=self.general_page.default_model(),
            default_agent=self.general_page.default_agent(),
            providers={d.name: d.settings() for d in self.providers_page.drafts},
            agents=self.agents_page.agents(),
            prices=self.prices_page.prices(),
            theme=self.general_page.theme(),
            text_size=self.general_page.text_size(),
            # Not edited here: kept as config.toml has them.
            reply_seconds=self._settings.reply_seconds,
            reply_bytes=self._settings.reply_bytes,
            storage_url=self._settings.storage_url,
            storage_password_env=self._settings.storage_password_env,
            tool_servers=self.tools_page.servers(),
            default_tools=before.default_tools,
            tool_rounds=before.tool_rounds,
            tool_output_kb=before.tool_output_kb,
            attachment_mb=before.attachment_mb,
        )

    def save(self) -> None:
        """OK: validate, store the typed keys, save, emit ``settings_saved`` and close."""
        issues = self.issues()
        if issues:
            self._show_issue(issues[0])
            return
        settings = self.settings()
        plan = self._key_plan()
        if not plan:
            self._finish(settings, None)
            return
        # The keyring may take seconds or never answer (the key store gives up after its
        # limit): the keys are stored from a worker thread while the dialog paints, and
        # the settings saved once they are (a window then looks its keys up again).
        self._storing = True
        self.buttons.setEnabled(False)
        self.show_error("")
        keys = self._keys
        self.providers_page.key_calls.run(
            lambda: _store_keys(keys, plan), lambda _: self._finish(settings, _)
        )

    def _finish(self, settings: Settings, _stored: object) -> None:
        self._storing = False
        self.buttons.setEnabled(True)
        try:
            self._save(settings)
        except Exception as exc:  # a full disk, a read-only folder: say so, stay open
            self.show_error(f"Could not save the settings: {exc}")
            return
        self.show_error("")
        self.settings_saved.emit(settings)
        if self.general_page.theme() != self._theme:
            self._theme = self.general_page.theme()
            self.theme_changed.emit(self._theme)
        self.accept()

    def _key_plan(self) -> list[_KeyChange]:
        """The keys OK stores, forgets or moves, as the drafts say now."""
        plan = []
        for draft in self.providers_page.drafts:
            renamed = draft.original is not None and draft.original != draft.name
            if draft.forget_key or draft.key or renamed:
                change = _KeyChange(draft.key_owner, draft.name, draft.key, draft.forget_key)
                plan.append(change)
        return plan

    # -- closing ------------------------------------------------------------------------

    def reject(self) -> None:
        if self._storing:  # the settings are saved: their keys are being stored
            return
        super().reject()

    def done(self, result: int) -> None:
        self.providers_page.cancel_test()
        self.tools_page.cancel_test()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.providers_page.cancel_test()
        self.tools_page.cancel_test()
        super().closeEvent(event)

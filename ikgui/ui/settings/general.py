"""The Settings dialog's General page: default provider, model and agent, the theme, the
text size, and (read-only) the store the history lives in."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpacerItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.settings import TEXT_SIZE_MAX, TEXT_SIZE_MIN, TEXT_SIZE_STEP, Settings
from ikgui.ui.settings.agents import fill_provider_combo
from ikgui.ui.settings.common import Issue, add_row, form_layout, label, named
from ikgui.ui.settings.drafts import AgentDraft, ProviderDraft
from ikgui.ui.settings.key_calls import KeyCalls


def _heading(text: str) -> QLabel:
    heading = QLabel(text)
    font = heading.font()
    font.setBold(True)
    heading.setFont(font)
    return heading


THEME_LABELS = {"system": "Follow the system", "light": "Light", "dark": "Dark"}
#: How to change the store (it is chosen at start-up, not in this dialog).
STORE_HINT = (
    "To use another database, set IKGUI_DATABASE_URL or url under [storage] in config.toml "
    "and restart ikgui; `ikgui db copy --to URL` copies the history over."
)


class GeneralPage(QWidget):
    """Defaults for new conversations, and the theme."""

    def __init__(
        self,
        settings: Settings,
        providers: Callable[[], list[ProviderDraft]],
        agents: Callable[[], list[AgentDraft]],
        theme: str,
        parent: QWidget | None = None,
        store: tuple[str, str | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("generalPage")
        self._providers = providers
        self._agents = agents
        self.provider_combo = named(QComboBox(), "defaultProvider", "Default provider")
        self.model_edit = named(
            QLineEdit(settings.default_model or ""), "defaultModel", "Default model"
        )
        self.model_edit.setPlaceholderText("the provider's first model")
        self.agent_combo = named(QComboBox(), "defaultAgent", "Default agent")
        self.theme_combo = named(QComboBox(), "themeSelector", "Theme")
        for value, text in THEME_LABELS.items():
            self.theme_combo.addItem(text, value)
        self.theme_combo.setCurrentIndex(max(0, self.theme_combo.findData(theme)))
        self.text_size_spin = named(QSpinBox(), "textSize", "Text size")
        self.text_size_spin.setRange(TEXT_SIZE_MIN, TEXT_SIZE_MAX)
        self.text_size_spin.setSingleStep(TEXT_SIZE_STEP)
        self.text_size_spin.setSuffix(" %")
        self.text_size_spin.setValue(settings.text_size)
        self.text_size_spin.setMinimumHeight(self.theme_combo.sizeHint().height())
        self.text_size_spin.setMaximumWidth(140)

        chosen = next((d.id for d in providers() if d.original == settings.default_provider), None)
        fill_provider_combo(self.provider_combo, providers(), None)
        self.provider_combo.setCurrentIndex(max(0, self.provider_combo.findData(chosen)))
        agent = next((a.id for a in agents() if a.name == settings.default_agent), None)
        self.refresh_agents()
        self.agent_combo.setCurrentIndex(max(0, self.agent_combo.findData(agent)))

        form = form_layout()
        form.addRow(_heading("Defaults for new conversations"))
        add_row(form, "&Provider", self.provider_combo)
        add_row(form, "&Model", self.model_edit)
        add_row(form, "&Agent", self.agent_combo)
        form.addRow("", label("Each conversation can switch later.", "hint"))
        form.addItem(QSpacerItem(0, 12))
        form.addRow(_heading("Appearance"))
        add_row(form, "&Theme", self.theme_combo)
        add_row(form, "Te&xt size", self.text_size_spin)
        form.addRow(
            "", label("The conversation's text; also Ctrl+= and Ctrl+- (Ctrl+0: 100 %).", "hint")
        )
        self.store_label: QLabel | None = None
        #: Where the store's password comes from (a PostgreSQL store's).
        self.password_label: QLabel | None = None
        if store is not None:
            self.store_label, self.password_label = _store_rows(form, *store)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addLayout(form)
        layout.addStretch(1)

    def refresh_providers(self) -> None:
        fill_provider_combo(self.provider_combo, self._providers(), None)

    def refresh_agents(self) -> None:
        selected = self.agent_combo.currentData()
        self.agent_combo.blockSignals(True)
        self.agent_combo.clear()
        self.agent_combo.addItem("None", None)
        for draft in self._agents():
            self.agent_combo.addItem(draft.name or "(unnamed)", draft.id)
        index = self.agent_combo.findData(selected) if selected is not None else 0
        self.agent_combo.setCurrentIndex(max(0, index))
        self.agent_combo.blockSignals(False)

    def default_provider(self) -> str:
        """The chosen provider's name (the first provider when none is chosen)."""
        drafts = self._providers()
        chosen = self.provider_combo.currentData()
        for draft in drafts:
            if draft.id == chosen:
                return draft.name
        return drafts[0].name if drafts else ""

    def default_agent(self) -> str | None:
        chosen = self.agent_combo.currentData()
        return next((a.name for a in self._agents() if a.id == chosen), None)

    def default_model(self) -> str | None:
        return self.model_edit.text().strip() or None

    def theme(self) -> str:
        return str(self.theme_combo.currentData())

    def text_size(self) -> int:
        return self.text_size_spin.value()

    def look_up_password(self, calls: KeyCalls, source: Callable[[], str | None]) -> None:
        """Fill the password line with ``source()``, asked from a worker thread (it asks
        the keyring)."""
        calls.run(source, self._password_found)

    def _password_found(self, text: str | None) -> None:
        if self.password_label is not None and text is not None:
            self.password_label.setText(text)

    def issues(self) -> list[Issue]:
        return []


def _store_rows(
    form: QFormLayout, store: str, password: str | None
) -> tuple[QLabel, QLabel | None]:
    """The read-only "Store" line ("PostgreSQL me@host:5432/db"), where its password
    comes from, and how to change it; returns the store's label and the password's."""
    form.addItem(QSpacerItem(0, 12))
    form.addRow(_heading("History"))
    store_label = _value(store, "storeLine", "Store")
    height = add_row(form, "Store", store_label).height()
    store_label.setMinimumHeight(height)
    password_label = None
    if password is not None:
        password_label = _value(password, "storePassword", "Database password")
        password_label.setMinimumHeight(height)
        add_row(form, "Password", password_label)
    form.addRow("", label(STORE_HINT, "hint"))
    return store_label, password_label


def _value(text: str, name: str, spoken: str) -> QLabel:
    """A read-only value beside a row label, on the label's line."""
    value = named(label(text), name, spoken)
    value.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    return value

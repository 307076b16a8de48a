"""The Settings dialog's Agents page: a named persona's system prompt, provider, model,
working-prompt mode and how its conversations are titled: every key an ``[agents.NAME]``
table of config.toml accepts (:data:`CONTROLS`)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QWidget

from ikgui.domain.settings import AgentSettings, Settings
from ikgui.ui.settings.common import Issue, add_row, form_layout, label, named
from ikgui.ui.settings.drafts import (
    AUTO_TITLE_LABELS,
    AgentDraft,
    ProviderDraft,
    tools_text,
    tools_value,
)
from ikgui.ui.settings.entries import NamedEntries, beside

PROMPT_MODE_LABELS = {
    "off": "Off",
    "line": "Line (“Prompt: …” in the reply)",
    "json": "JSON (a block after ---)",
}

#: Each setting of an agent (config.toml's key, :class:`AgentSettings`' field) and the
#: :class:`AgentsPage` control that edits it.
CONTROLS = {
    "name": "name_edit",
    "system_prompt": "prompt_edit",
    "provider": "provider_combo",
    "model": "model_edit",
    "prompt_mode": "mode_combo",
    "auto_title": "title_combo",
    "tools": "tools_edit",
}


def fill_provider_combo(combo: QComboBox, drafts: list[ProviderDraft], first: str | None) -> None:
    """List the providers in ``combo`` (after an optional ``first`` entry meaning none),
    keeping the selected provider selected even if it was renamed."""
    selected = combo.currentData()
    combo.blockSignals(True)
    combo.clear()
    if first is not None:
        combo.addItem(first, None)
    for draft in drafts:
        combo.addItem(draft.name or "(unnamed)", draft.id)
    index = combo.findData(selected) if selected is not None else 0
    combo.setCurrentIndex(max(0, index))
    combo.blockSignals(False)


class AgentsPage(QWidget):
    """Edits the agents; ``drafts`` is the list as it stands."""

    #: The list of agents or one's name changed.
    agents_changed = Signal()

    def __init__(
        self,
        settings: Settings,
        providers: Callable[[], list[ProviderDraft]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("agentsPage")
        self._providers = providers
        self._showing = False
        ids = {draft.original: draft.id for draft in providers()}
        self.drafts = [
            AgentDraft(
                a.name,
                a.system_prompt or "",
                ids.get(a.provider),
                a.model or "",
                a.prompt_mode,
                a.auto_title,
                tools=tools_text(a.tools),
            )
            for a in settings.agents.values()
        ]
        self.name_edit = named(QLineEdit(), "agentName", "Agent name")
        self.editor: NamedEntries[AgentDraft] = NamedEntries(
            "agentList",
            "agent",
            self.drafts,
            make=AgentDraft,
            name_edit=self.name_edit,
            show=self._show,
        )
        self.editor.changed.connect(self.agents_changed)
        self.editor.added.connect(self._added)
        self._build()
        self.provider_combo.activated.connect(self._provider_chosen)
        self.model_edit.textEdited.connect(self._model_edited)
        self.mode_combo.activated.connect(self._mode_chosen)
        self.title_combo.activated.connect(self._title_chosen)
        self.prompt_edit.textChanged.connect(self._prompt_edited)
        self.tools_edit.textEdited.connect(self._tools_edited)
        self.refresh_providers()
        self.editor.fill()

    def _build(self) -> None:
        self.provider_combo = named(QComboBox(), "agentProvider", "Agent's provider")
        self.model_edit = named(QLineEdit(), "agentModel", "Agent's model")
        self.model_edit.setPlaceholderText("the provider's default model")
        self.mode_combo = named(QComboBox(), "agentPromptMode", "Prompt mode")
        for mode, text in PROMPT_MODE_LABELS.items():
            self.mode_combo.addItem(text, mode)
        self.title_combo = named(QComboBox(), "agentAutoTitle", "Conversation titles")
        self.title_combo.setToolTip("How this agent's new conversations get their title")
        for value, text in AUTO_TITLE_LABELS.items():
            self.title_combo.addItem(text, value)
        self.tools_edit = named(QLineEdit(), "agentTools", "Agent's tools")
        self.tools_edit.setPlaceholderText("as the defaults (every enabled tool server)")
        self.tools_edit.setToolTip(
            "Tool servers (or server.tool) its conversations offer, e.g. time, files;"
            " none: no tools"
        )
        self.prompt_edit = named(QPlainTextEdit(), "agentSystemPrompt", "System prompt")
        self.prompt_edit.setPlaceholderText("You are a careful senior engineer.")
        self.prompt_edit.setTabChangesFocus(True)
        form = form_layout()
        add_row(form, "&Name", self.name_edit)
        add_row(form, "&Provider", self.provider_combo)
        add_row(form, "&Model", self.model_edit)
        add_row(form, "&Working prompt", self.mode_combo)
        add_row(form, "&Titles", self.title_combo)
        add_row(form, "T&ools", self.tools_edit)
        add_row(form, "&System prompt", self.prompt_edit)
        form.addRow(
            "",
            label("The system prompt is sent first in every conversation with this agent.", "hint"),
        )
        self.form = named(QWidget(), "agentForm", "Agent")
        self.form.setLayout(form)
        beside(self, self.editor, self.form)

    @property
    def current(self) -> AgentDraft | None:
        return self.editor.current

    def refresh_providers(self) -> None:
        """The providers changed: forget removed ones, show renamed ones' new names."""
        alive = {draft.id for draft in self._providers()}
        for agent in self.drafts:
            if agent.provider_id not in alive:
                agent.provider_id = None
        fill_provider_combo(self.provider_combo, self._providers(), "Default provider")

    def _show(self, draft: AgentDraft | None) -> None:
        self.form.setEnabled(draft is not None)
        self._showing = True
        if draft is None:
            self.name_edit.clear()
            self.model_edit.clear()
            self.tools_edit.clear()
            self.prompt_edit.clear()
        else:
            self.name_edit.setText(draft.name)
            index = self.provider_combo.findData(draft.provider_id)
            self.provider_combo.setCurrentIndex(max(0, index))
            self.model_edit.setText(draft.model)
            self.mode_combo.setCurrentIndex(max(0, self.mode_combo.findData(draft.prompt_mode)))
            self.title_combo.setCurrentIndex(max(0, self.title_combo.findData(draft.auto_title)))
            self.tools_edit.setText(draft.tools)
            self.prompt_edit.setPlainText(draft.system_prompt)
        self._showing = False

    def _provider_chosen(self, index: int) -> None:
        if self.current is not None:
            data = self.provider_combo.itemData(index)
            self.current.provider_id = int(data) if data is not None else None

    def _model_edited(self, text: str) -> None:
        if self.current is not None:
            self.current.model = text

    def _mode_chosen(self, index: int) -> None:
        if self.current is not None:
            self.current.prompt_mode = str(self.mode_combo.itemData(index))

    def _title_chosen(self, index: int) -> None:
        if self.current is not None:
            self.current.auto_title = str(self.title_combo.itemData(index))

    def _tools_edited(self, text: str) -> None:
        if self.current is not None:
            self.current.tools = text

    def _prompt_edited(self) -> None:
        if self.current is not None and not self._showing:
            self.current.system_prompt = self.prompt_edit.toPlainText()

    def add_agent(self) -> None:
        self.editor.add()

    def _added(self) -> None:
        self.name_edit.setFocus()
        self.name_edit.selectAll()

    def remove_agent(self) -> None:
        self.editor.remove()

    def names(self) -> list[str]:
        return self.editor.names()

    def issues(self) -> list[Issue]:
        found: list[Issue] = []
        for row, draft in enumerate(self.drafts):
            problem = self.editor.name_problem(draft)
            if problem:
                found.append(Issue("agents", problem, self.name_edit, row))
        return found

    def agents(self) -> dict[str, AgentSettings]:
        providers = {draft.id: draft.name for draft in self._providers()}
        return {
            draft.name: AgentSettings(
                draft.name,
                draft.system_prompt if draft.system_prompt.strip() else None,
                providers.get(draft.provider_id) if draft.provider_id is not None else None,
                draft.model.strip() or None,
                draft.prompt_mode,
                draft.auto_title,
                tools_value(draft.tools),
            )
            for draft in self.drafts
        }

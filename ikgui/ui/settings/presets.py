"""Presets for a new provider: the well-known servers (OpenAI, Anthropic, OpenRouter,
Groq, LM Studio, Ollama, llama.cpp) whose name, kind and base URL "Add provider" can fill
in, all still editable."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QComboBox

from ikgui.ui.settings.common import named
from ikgui.ui.settings.drafts import ProviderDraft
from ikgui.ui.settings.entries import free_name


@dataclass(frozen=True)
class Preset:
    """A well-known server: what "Add provider" fills in when the user picks it."""

    label: str
    name: str
    kind: str
    base_url: str


#: The presets offered for a new provider, in the order shown (the real public base
#: URLs, and each local server's usual port).
PRESETS = (
    Preset("OpenAI", "openai", "openai", "https://api.openai.com/v1"),
    Preset("Anthropic", "anthropic", "anthropic", "https://api.anthropic.com"),
    Preset("OpenRouter", "openrouter", "openai", "https://openrouter.ai/api/v1"),
    Preset("Groq", "groq", "openai", "https://api.groq.com/openai/v1"),
    Preset("LM Studio (this computer)", "lmstudio", "openai", "http://localhost:1234/v1"),
    Preset("Ollama (this computer)", "ollama", "ollama", "http://localhost:11434"),
    Preset("llama.cpp server (this computer)", "llamacpp", "openai", "http://localhost:8080/v1"),
)
#: The combo's item data of "another OpenAI-compatible server" (None: no choice yet).
OTHER = ""


def preset_combo() -> QComboBox:
    """The choice of a preset; its item data is a preset's name, :data:`OTHER` or None."""
    combo = named(QComboBox(), "providerPreset", "Preset")
    combo.addItem("Choose a server to fill in the fields…", None)
    for preset in PRESETS:
        combo.addItem(preset.label, preset.name)
    combo.addItem("Another OpenAI-compatible server", OTHER)
    combo.setToolTip("Fills in the name, kind and base URL; you can edit them")
    return combo


def preset_named(name: object) -> Preset | None:
    return next((preset for preset in PRESETS if preset.name == name), None)


def apply_preset(draft: ProviderDraft, preset: Preset, others: list[str]) -> bool:
    """Fill ``draft`` in from ``preset``; its name only while it is one ikgui gave (never
    a name the user typed), made unique among ``others``. True when the name changed."""
    draft.kind, draft.base_url = preset.kind, preset.base_url
    if draft.name != draft.given_name:
        return False
    name = preset.name if preset.name not in others else free_name(preset.name, others)
    renamed = name != draft.name
    draft.name = draft.given_name = name
    return renamed

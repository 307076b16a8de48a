"""What the Settings dialog's pages edit: drafts of providers and agents, identified by
an id so that renaming one keeps every reference to it (agents, defaults) attached."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ikgui.domain.settings import ProviderSettings

KIND_LABELS = {"openai": "OpenAI-compatible", "ollama": "Ollama", "anthropic": "Anthropic"}
DEFAULT_URLS = {
    "openai": "https://api.openai.com/v1",
    "ollama": "http://localhost:11434",
    "anthropic": "https://api.anthropic.com",
}


#: ``auto_title`` (config.toml, agents and providers): how a new conversation is titled.
AUTO_TITLE_LABELS = {
    "words": "From the first message's words",
    "model": "Written by the model after its first reply",
}
_ids = itertools.count(1)


@dataclass
class ProviderDraft:
    """A provider being edited; ``original`` is its name in the loaded settings."""

    name: str
    kind: str
    base_url: str
    api_key_env: str = ""
    original: str | None = None
    key: str = ""
    forget_key: bool = False
    auto_title: str = "words"
    #: The name ikgui gave it (a new one's, or a preset's): a preset may replace that
    #: one, never a name the user typed.
    given_name: str | None = None
    id: int = 0

    def __post_init__(self) -> None:
        self.id = self.id or next(_ids)

    def settings(self) -> ProviderSettings:
        url = self.base_url.strip().rstrip("/")
        return ProviderSettings(
            self.name, self.kind, url, self.api_key_env.strip() or None, self.auto_title
        )

    @property
    def key_owner(self) -> str:
        """The name the keyring knows this provider by until OK is pressed."""
        return self.original or self.name


@dataclass
class AgentDraft:
    """An agent being edited; its provider is a provider draft's id (None: the default)."""

    name: str
    system_prompt: str = ""
    provider_id: int | None = None
    model: str = ""
    prompt_mode: str = "off"
    auto_title: str = "words"
    id: int = 0
    #: The tools its conversations offer, as typed: ``time, files.read_file``; empty:
    #: as ``[defaults] tools``; ``none``: no tools.
    tools: str = ""

    def __post_init__(self) -> None:
        self.id = self.id or next(_ids)


#: What the agents' Tools field says for "no tools at all".
NO_TOOLS = "none"


def tools_text(tools: tuple[str, ...] | None) -> str:
    if tools is None:
        return ""
    return ", ".join(tools) if tools else NO_TOOLS


def tools_value(text: str) -> tuple[str, ...] | None:
    words = text.replace(",", " ").split()
    if not words:
        return None
    return () if words == [NO_TOOLS] else tuple(words)


def connected_text(models: list[str]) -> str:
    """``Connected: 3 models (a, b, c…)``."""
    count = len(models)
    noun = "model" if count == 1 else "models"
    if not models:
        return f"Connected: {count} {noun}"
    shown = ", ".join(models[:3]) + ("…" if count > 3 else "")
    return f"Connected: {count} {noun} ({shown})"

"""What the user can do about a failure, worded for where it is read (issue 10, item 7).

A :class:`~ikgui.domain.errors.ProviderError` carries what happened (``what``, a
sentence with the facts: URL, status, the server's words) and an :class:`Advice`: a
key naming the remedy plus the few facts its wording needs. :func:`advice` words the
remedy for an audience:

- ``"cli"``: the command line's words (``ikgui keys set``, ``-p``, config.toml sections),
  never the window's ("in Settings": a command-line user may have no window);
- ``"window"``: the window's controls ("Open Settings → Providers → API key"), never a
  command-line flag or a config file section.

One remedy, two renderings, one table (:data:`ADVICE`). The stored ``error`` event keeps
the command line's sentence as its content (``conv show`` reads it as before) and the
key and facts in its data (``advice``, ``facts``); :func:`error_text` gives the window's
sentence from those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Audience = Literal["cli", "window"]

_PROVIDERS = "Settings → Providers"
_URL = f"{_PROVIDERS} → Base URL"
_KEY = f"{_PROVIDERS} → API key"

#: key → (the command line's words, the window's words); ``{fact}`` fields are filled
#: from the error's facts. Each is one or more whole sentences.
ADVICE: dict[str, tuple[str, str]] = {
    "set_key": (
        "Set it with `ikgui keys set {provider}`.",
        f"Open {_KEY} to set it.",
    ),
    "key_permissions": (
        "Check the key's permissions, or set another with `ikgui keys set {provider}`.",
        f"Check the key's permissions, or set another in {_KEY}.",
    ),
    "start_server": (
        "Check that the server is running and that base_url under {table} in config.toml is right.",
        f"Check that the server is running, or fix its address in {_URL}.",
    ),
    "start_ollama": (
        "Is Ollama running? Start it with `ollama serve`.",
        'Is Ollama running? Start the Ollama app or run "ollama serve" in a terminal, or '
        f"fix its address in {_URL}.",
    ),
    "check_host": (
        "Check base_url under {table} in config.toml and your network connection.",
        f"Check your network connection and the address in {_URL}.",
    ),
    "check_tls": (
        "Check the URL, or use http:// for a server on this machine.",
        f"Check the address in {_URL}, or use http:// for a server on this machine.",
    ),
    "check_url": (
        "Check base_url under {table} in config.toml.",
        f"Check the address in {_URL}.",
    ),
    "check_url_v1": (
        "Check base_url under {table} in config.toml (OpenAI-compatible URLs usually end in /v1).",
        f"Check the address in {_URL} (OpenAI-compatible addresses usually end in /v1).",
    ),
    "check_url_model": (
        'Check base_url under {table} in config.toml and that the model "{model}" exists.',
        f'Check the address in {_URL}, and that the model "{{model}}" exists.',
    ),
    "check_kind": (
        "Check that kind under {table} in config.toml matches the server.",
        f"Check that {_PROVIDERS} → Kind matches the server.",
    ),
    "check_url_kind": (
        "Check base_url and kind under {table} in config.toml.",
        f"Check the address and the kind in {_PROVIDERS}.",
    ),
    "fix_url": (
        "Fix base_url under {table} in config.toml.",
        f"Fix it in {_URL}.",
    ),
    "known_kind": (
        "Use one of {kinds} in config.toml.",
        f"Choose one of {{kinds}} in {_PROVIDERS} → Kind.",
    ),
    "check_network": (
        "Check the URL and network.",
        f"Check your network connection and the address in {_URL}.",
    ),
    "check_proxy": (
        "Check the HTTPS_PROXY and NO_PROXY environment variables.",
        "Check the HTTPS_PROXY and NO_PROXY environment variables ikgui was started with.",
    ),
    "choose_model": (
        "Choose another with /model.",
        "Choose another model in the toolbar's model list.",
    ),
    "pull_model": (
        "Pull it with `ollama pull {model}` or choose another with /model.",
        "Pull it with `ollama pull {model}`, or choose another model in the toolbar's model list.",
    ),
    "pick_model": (
        "Pick one with /model NAME or set [defaults] model in config.toml "
        "(for Ollama: ollama pull llama3.2).",
        "Choose one in the toolbar's model list, or set a default in Settings → General "
        "→ Model (for Ollama, pull one first: ollama pull llama3.2).",
    ),
    "configure_provider": (
        "Add [providers.{provider}] to config.toml (or choose another with -p).",
        f"Add it in {_PROVIDERS}, or choose another provider in Settings → General.",
    ),
    "file_type": (
        "Choose a model that reads {kind} with /model and retry, or ask without the file.",
        "Choose a model that reads {kind} in the toolbar's model list and Retry, or ask "
        "without the file.",
    ),
    "shorten": (
        "Shorten it with /rewind or /clear, or choose a model with a larger context.",
        "Shorten it with Rewind or Clear in the toolbar, or choose a model with a larger context.",
    ),
    "wait": (
        "Wait {wait} before retrying.",
        "Wait {wait}, then retry.",
    ),
    "try_again": (
        "Try again in a moment.",
        "Try again in a moment.",
    ),
    "reply_limit": (
        "The limit is {setting} under [limits] in config.toml; the text that arrived is kept.",
        "The text that arrived is kept.",
    ),
}


@dataclass(frozen=True)
class Advice:
    """A remedy: its :data:`ADVICE` key and the facts its wording needs."""

    key: str
    facts: Mapping[str, str] = field(default_factory=dict)

    def text(self, audience: Audience) -> str:
        return advice(self.key, audience, self.facts)


def advice(key: str, audience: Audience, facts: Mapping[str, Any] | None = None) -> str:
    """The remedy ``key`` in the words of ``audience``; ``""`` for an unknown key (a
    newer version's) or a fact its wording needs but was not given."""
    words = ADVICE.get(key)
    if words is None:
        return ""
    template = words[0] if audience == "cli" else words[1]
    values = {k: str(v) for k, v in (facts or {}).items()}
    if "provider" in values:
        values["table"] = f"[providers.{_toml_key(values['provider'])}]"
    try:
        return template.format_map(values)
    except (KeyError, ValueError, IndexError):
        return ""


def _toml_key(name: str) -> str:
    """``name`` as a key of a TOML table header: bare when it may be, else quoted."""
    if name and all(c.isascii() and (c.isalnum() or c in "-_") for c in name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def join(what: str, remedy: str) -> str:
    """The sentence shown: what happened, then the remedy."""
    return f"{what} {remedy}" if remedy else what


def error_text(content: str, data: Mapping[str, Any], audience: Audience) -> str:
    """The text of a stored ``error`` event for ``audience``. Its content is the command
    line's sentence; where its data names the advice, the window's replaces it (an
    event written before advice was stored, or whose wording changed since, is shown as
    stored)."""
    key, facts = data.get("advice"), data.get("facts")
    if audience == "cli" or not isinstance(key, str):
        return content
    facts = facts if isinstance(facts, Mapping) else {}
    said = advice(key, "cli", facts)
    if not said or not content.endswith(f" {said}"):
        return content
    return join(content[: -len(said) - 1], advice(key, audience, facts))


#: The few words an error card is headed with, per category (the sentence says the rest).
HEADLINES: dict[str, str] = {
    "connect": "cannot connect",
    "timeout": "timed out",
    "auth": "API key",
    "not_found": "not found",
    "rate_limit": "rate limited",
    "overloaded": "overloaded",
    "server_error": "server error",
    "bad_request": "refused",
    "stream_error": "server error",
    "cut": "cut off",
    "protocol": "unexpected answer",
    "config": "setup",
    "limit": "limit reached",
}


def headline(category: object, status: object = None) -> str:
    """An error card's heading words for ``category`` (``""`` when unknown). Events
    stored before ``server_error`` existed called every 5xx "overloaded": only a 503 or
    a 529 (or no status: a provider's own overload error) is headed so."""
    if category == "overloaded" and isinstance(status, int) and status not in (503, 529):
        category = "server_error"
    return HEADLINES.get(category, "") if isinstance(category, str) else ""


#: The Settings page whose controls each remedy names (for an error card's "Open
#: provider settings": the cause is configuration).
SETTINGS_PAGES: dict[str, str] = {
    **dict.fromkeys(
        (
            "set_key",
            "key_permissions",
            "start_server",
            "start_ollama",
            "check_host",
            "check_tls",
            "check_url",
            "check_url_v1",
            "check_url_model",
            "check_kind",
            "check_url_kind",
            "fix_url",
            "known_kind",
            "check_network",
            "configure_provider",
        ),
        "providers",
    ),
    "pick_model": "general",
}
#: For events stored before their advice was: the categories that are configuration.
_CONFIG_CATEGORIES = ("auth", "connect", "config", "not_found")


def settings_page(data: Mapping[str, Any]) -> str | None:
    """The Settings page that fixes the failure an ``error`` event's ``data`` describes
    ("providers", "general"), or ``None`` when the cause is not configuration (a busy
    or failing server, a cut stream: retrying is the remedy)."""
    key = data.get("advice")
    if isinstance(key, str):
        return SETTINGS_PAGES.get(key)
    return "providers" if data.get("category") in _CONFIG_CATEGORIES else None

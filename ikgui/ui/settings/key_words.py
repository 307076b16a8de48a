"""What the Providers page says about a provider's API key, in a window user's words:
paste it into the field (the keyring keeps it), never a command to run; and, without a
keyring, plainly that a typed key lasts only until ikgui closes."""

from __future__ import annotations

import os

from ikgui.local.keys import KeyStore
from ikgui.ui.settings.drafts import ProviderDraft

#: Said when keys cannot outlive the session (no command, no config file).
NO_KEYRING = (
    "This computer has no password store (system keyring) ikgui can use, so a key typed "
    "here is kept for this session only: it is forgotten when ikgui closes. To keep it, "
    "install one (e.g. GNOME Keyring or KWallet) and restart ikgui, or put the key in an "
    "environment variable and type its name under Key variable."
)
_LOCAL = ("://localhost", "://127.0.0.1", "://[::1]")


class KeyWords:
    """The key line under the API key field, for a provider being edited."""

    def __init__(self, keys: KeyStore) -> None:
        self._keys = keys
        # Keyring look-ups can be slow (D-Bus) or prompt to unlock: once per name and variable.
        self._status: dict[tuple[str, str | None], tuple[str, bool]] = {}

    def text(self, draft: ProviderDraft) -> str:
        where = "in the system keyring" if self._keys.available else "for this session only"
        env = draft.api_key_env.strip() or None
        if draft.key:
            return f"The new key will be kept {where} when you press OK."
        if draft.forget_key:
            return "The stored key will be removed when you press OK."
        status, stored = self._status_of(draft.key_owner, env)
        if not stored and not (env and os.environ.get(env)):
            status = self._missing(draft, env)
        return "Key: " + status

    def stored(self, draft: ProviderDraft) -> bool:
        """Whether the keyring (or this session) holds a key for ``draft``."""
        return self._status_of(draft.key_owner, draft.api_key_env.strip() or None)[1]

    def _missing(self, draft: ProviderDraft, env: str | None) -> str:
        if draft.kind == "ollama" and not env:
            return "none needed for a local Ollama (add one only if your server asks)"
        also = f" or set {env}" if env else ""
        if any(host in draft.base_url for host in _LOCAL):
            return f"none; a server on this computer usually needs none{also}."
        kept = "the keyring keeps it" if self._keys.available else "kept until ikgui closes"
        return f"none. Paste it above ({kept}){also}."

    def _status_of(self, owner: str, env: str | None) -> tuple[str, bool]:
        """``KeyStore.status`` and whether the keyring (or session) holds a key, cached."""
        cached = self._status.get((owner, env))
        if cached is None:
            stored = self._keys.get(owner) is not None
            cached = self._status[(owner, env)] = (self._keys.status(owner, env), stored)
        return cached

"""What the Providers page says about a provider's API key, in a window user's words:
paste it into the field (the keyring keeps it), never a command to run; and, without a
keyring, plainly that a typed key lasts only until ikgui closes.

What the keyring holds is asked from a worker thread (:class:`KeyCalls`), once per
provider and key variable; until it answers the line says it is looking."""

from __future__ import annotations

import os
from collections.abc import Callable

from ikgui.local.keys import KeyStore
from ikgui.ui.settings.drafts import ProviderDraft
from ikgui.ui.settings.key_calls import KeyCalls

#: Said when keys cannot outlive the session (no command, no config file).
NO_KEYRING = (
    "This computer has no password store (system keyring) ikgui can use, so a key typed "
    "here is kept for this session only: it is forgotten when ikgui closes. To keep it, "
    "install one (e.g. GNOME Keyring or KWallet) and restart ikgui, or put the key in an "
    "environment variable and type its name under Key variable."
)
_LOCAL = ("://localhost", "://127.0.0.1", "://[::1]")
#: Said while the keyring has not answered yet.
LOOKING = "Key: looking in the system keyring…"


class KeyWords:
    """The key line under the API key field, for a provider being edited."""

    def __init__(self, keys: KeyStore, calls: KeyCalls, answered: Callable[[], None]) -> None:
        self._keys = keys
        self._calls = calls
        #: Called on the GUI thread when a key's status arrives (the line is redrawn).
        self._answered = answered
        # Keyring look-ups can be slow (D-Bus) or prompt to unlock: once per name and variable.
        self._status: dict[tuple[str, str | None], tuple[str, bool]] = {}
        self._asking: set[tuple[str, str | None]] = set()

    def text(self, draft: ProviderDraft) -> str:
        env = draft.api_key_env.strip() or None
        if draft.key:
            return f"The new key will be kept{self._where()} when you press OK."
        if draft.forget_key:
            return "The stored key will be removed when you press OK."
        known = self._status_of(draft.key_owner, env)
        if known is None:
            return LOOKING
        status, stored = known
        if not stored and not (env and os.environ.get(env)):
            status = self._missing(draft, env)
        return "Key: " + status

    def stored(self, draft: ProviderDraft) -> bool:
        """Whether the keyring (or this session) holds a key for ``draft`` (False until
        the keyring answers)."""
        known = self._status_of(draft.key_owner, draft.api_key_env.strip() or None)
        return known is not None and known[1]

    def _where(self) -> str:
        if not self._keys.probed:  # (not asked on this thread: it may not answer)
            return ""
        return " in the system keyring" if self._keys.available else " for this session only"

    def _missing(self, draft: ProviderDraft, env: str | None) -> str:
        if draft.kind == "ollama" and not env:
            return "none needed for a local Ollama (add one only if your server asks)"
        also = f" or set {env}" if env else ""
        if any(host in draft.base_url for host in _LOCAL):
            return f"none; a server on this computer usually needs none{also}."
        kept = "the keyring keeps it" if self._keys.available else "kept until ikgui closes"
        return f"none. Paste it above ({kept}){also}."

    def _status_of(self, owner: str, env: str | None) -> tuple[str, bool] | None:
        """``KeyStore.status`` and whether the keyring (or session) holds a key, cached;
        None while it is being looked up (the look-up starts here)."""
        at = (owner, env)
        cached = self._status.get(at)
        if cached is None and at not in self._asking:
            self._asking.add(at)
            keys = self._keys

            def look() -> tuple[str, bool]:
                stored = keys.get(owner) is not None
                return keys.status(owner, env), stored

            self._calls.run(look, lambda known: self._arrived(at, known))
        return cached

    def _arrived(self, at: tuple[str, str | None], known: tuple[str, bool] | None) -> None:
        self._asking.discard(at)
        self._status[at] = known if known is not None else ("not known", False)
        self._answered()

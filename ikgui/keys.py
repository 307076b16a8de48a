"""API keys: the OS keyring (service ``ikgui``, user = provider name), an environment
variable named in the config, or — where no keyring backend exists — this session only.

Keys never reach the database, the config file, logs or exports; messages name where
a key lives, never the key.
"""

from __future__ import annotations

import os
import threading

SERVICE = "ikgui"
#: Backends that do not keep secrets safely (or at all): never a silent default.
_UNSAFE = ("fail", "null", "plaintext", "keyrings.alt", "chainer")


class KeyStore:
    """Looks the backend up on first use: discovering keyring backends costs ~100 ms,
    which start-up should not pay before the window shows."""

    def __init__(self) -> None:
        self._session: dict[str, str] = {}
        self._lock = threading.Lock()
        self._probed = False
        self._available = False
        self._backend_name = ""

    def probe(self) -> None:
        """Find the keyring backend now (it is otherwise found on first use)."""
        self._probe()

    def _probe(self) -> None:
        with self._lock:
            self._probe_locked()

    def _probe_locked(self) -> None:
        if self._probed:
            return
        import keyring

        self._keyring = keyring
        backend = keyring.get_keyring()
        name = f"{type(backend).__module__}.{type(backend).__name__}".lower()
        self._backend_name = type(backend).__name__
        self._available = not any(part in name for part in _UNSAFE) or self._chain_has_backends(
            backend
        )
        self._probed = True

    @property
    def available(self) -> bool:
        self._probe()
        return self._available

    @property
    def backend_name(self) -> str:
        self._probe()
        return self._backend_name

    @staticmethod
    def _chain_has_backends(backend: object) -> bool:
        backends = getattr(backend, "backends", None)
        return bool(backends) and "chainer" in type(backend).__module__

    @property
    def notice(self) -> str | None:
        """What to tell the user when keys cannot be kept between sessions."""
        if self.available:
            return None
        return (
            "No system keyring is available, so API keys are kept for this session only. "
            "To keep one, set api_key_env for the provider in config.toml and export that "
            "variable, or install a keyring service (e.g. gnome-keyring or KWallet)."
        )

    def get(self, provider: str, env_var: str | None = None) -> str | None:
        if env_var and os.environ.get(env_var):
            return os.environ[env_var]
        if provider in self._session:
            return self._session[provider]
        if not self.available:
            return None
        try:
            value = self._keyring.get_password(SERVICE, provider)
        except Exception:  # any backend failure means "no key here"
            return None
        return value or None

    def set(self, provider: str, key: str) -> str:
        """Store a key; returns where it went (``keyring`` or ``session``)."""
        if self.available:
            try:
                self._keyring.set_password(SERVICE, provider, key)
            except Exception:  # a locked or broken keyring
                self._session[provider] = key
                return "session"
            self._session.pop(provider, None)
            return "keyring"
        self._session[provider] = key
        return "session"

    def delete(self, provider: str) -> bool:
        """Forget a key; True if there was one."""
        had = self._session.pop(provider, None) is not None
        if self.available:
            try:
                self._keyring.delete_password(SERVICE, provider)
                had = True
            except Exception:  # PasswordDeleteError: nothing stored
                pass
        return had

    def status(self, provider: str, env_var: str | None = None) -> str:
        if env_var and os.environ.get(env_var):
            return f"set by the environment variable {env_var}"
        if provider in self._session:
            return "kept for this session only"
        if self.available and self.get(provider) is not None:
            return f"stored in the system keyring ({self.backend_name})"
        where = f" (or export {env_var})" if env_var else ""
        return f"not set: use `ikgui keys set {provider}`{where}"

"""API keys: the OS keyring (service ``ikgui``, user = provider name), an environment
variable named in the config, or — where no keyring backend exists — this session only.

Keys never reach the database, the config file, logs or exports; messages name where
a key lives, never the key.

A keyring may never answer (a locked Secret Service waiting for a prompt nobody sees):
every call to it runs in a daemon thread and is waited for at most
:data:`KEYRING_SECONDS`; after that ikgui goes on as if no key were stored, says so once,
and asks the keyring nothing more in this process. On the command line
(``interruptible``) SIGTERM and Ctrl+C end the wait at once.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

SERVICE = "ikgui"
#: Backends that do not keep secrets safely (or at all): never a silent default.
_UNSAFE = ("fail", "null", "plaintext", "keyrings.alt", "chainer")
#: The longest one keyring call may take (an unlocked keyring answers in milliseconds).
KEYRING_SECONDS = 5.0

T = TypeVar("T")


class KeyringInterrupted(KeyboardInterrupt):
    """SIGTERM or Ctrl+C arrived while the command line waited for the keyring."""

    def __init__(self, signum: int) -> None:
        super().__init__()
        self.signum = signum


class _Unanswered(Exception):
    """The keyring did not answer in time (or did not before): no key from it."""


class KeyStore:
    """Looks the backend up on first use: discovering keyring backends costs ~100 ms,
    which start-up should not pay before the window shows.

    ``warn`` receives, once, the line saying the keyring did not answer; ``interruptible``
    lets SIGTERM and SIGINT end a wait for the keyring (the command line's main thread)."""

    def __init__(
        self,
        warn: Callable[[str], None] | None = None,
        *,
        interruptible: bool = False,
        seconds: float = KEYRING_SECONDS,
    ) -> None:
        self._session: dict[str, str] = {}
        self._lock = threading.Lock()
        self._probed = False
        self._available = False
        self._backend_name = ""
        self._warn = warn
        self._interruptible = interruptible
        self._seconds = seconds
        #: Set once the keyring failed to answer: it is not asked again.
        self.unanswered: str | None = None
        #: How many keys this process stored or forgot: what keeps a looked-up key
        #: (:class:`ikgui.wiring.Providers`) knows it is out of date when it changes.
        self.changes = 0

    def _call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a daemon thread, waited for at most ``seconds``."""
        if self.unanswered is not None:
            raise _Unanswered
        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["value"] = function(*args)
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="ikgui-keyring", daemon=True).start()
        with self._signals_interrupt():
            answered = done.wait(self._seconds)
        if not answered:
            self.unanswered = (
                f"the system keyring did not answer within {self._seconds:g} s (is it locked?),"
                " so ikgui goes on as if no key were stored there: unlock it, or set "
                "api_key_env for the provider in config.toml (for the database: password_env "
                "under [storage], or ~/.pgpass)"
            )
            if self._warn is not None:
                self._warn(self.unanswered)
            raise _Unanswered
        if "error" in box:
            raise box["error"]
        return box["value"]  # type: ignore[no-any-return]

    @contextmanager
    def _signals_interrupt(self) -> Iterator[None]:
        """While waiting: SIGTERM and SIGINT raise :class:`KeyringInterrupted` at once.
        (An asyncio loop's own handlers would only run after the wait, and Python's
        default SIGINT handling would leave a first Ctrl+C to the loop's task too.)"""
        if not self._interruptible or threading.current_thread() is not threading.main_thread():
            yield
            return

        def interrupt(signum: int, _frame: FrameType | None) -> None:
            raise KeyringInterrupted(signum)

        previous: dict[signal.Signals, Any] = {}
        try:
            for number in (signal.SIGTERM, signal.SIGINT):
                previous[number] = signal.signal(number, interrupt)
            yield
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)

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
        try:
            backend = self._call(keyring.get_keyring)
        except Exception:  # unanswered, or no backend at all: keys for this session only
            self._probed = True
            return
        name = f"{type(backend).__module__}.{type(backend).__name__}".lower()
        self._backend_name = type(backend).__name__
        self._available = not any(part in name for part in _UNSAFE) or self._chain_has_backends(
            backend
        )
        self._probed = True

    @property
    def probed(self) -> bool:
        """Whether :attr:`available` answers without asking the keyring (a window asks
        it from a worker thread first)."""
        return self._probed

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
        if self.unanswered is not None:
            return self.unanswered[0].upper() + self.unanswered[1:] + "."
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
            value = self._call(self._keyring.get_password, SERVICE, provider)
        except Exception:  # any backend failure (or no answer) means "no key here"
            return None
        return value or None

    def set(self, provider: str, key: str) -> str:
        """Store a key; returns where it went (``keyring`` or ``session``)."""
        self.changes += 1
        try:
            return self._set(provider, key)
        finally:
            # Again once stored: a look-up that began meanwhile may have read the old one.
            self.changes += 1

    def _set(self, provider: str, key: str) -> str:
        if self.available:
            try:
                self._call(self._keyring.set_password, SERVICE, provider, key)
            except Exception:  # a locked, broken or silent keyring
                self._session[provider] = key
                return "session"
            self._session.pop(provider, None)
            return "keyring"
        self._session[provider] = key
        return "session"

    def delete(self, provider: str) -> bool:
        """Forget a key; True if there was one."""
        self.changes += 1
        had = self._session.pop(provider, None) is not None
        if self.available:
            try:
                self._call(self._keyring.delete_password, SERVICE, provider)
                had = True
            except Exception:  # PasswordDeleteError: nothing stored
                pass
        self.changes += 1  # (as in set)
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

"""An in-memory keyring backend for tests (the real OS keyring cannot run here)."""

from __future__ import annotations

import threading

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]
    #: Never found by keyring's discovery (a process's first ``get_keyring()`` would chain
    #: a copy of every viable backend): a test sets it, or a child process names it.
    viable = False  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}
        #: Each key read: whose key, and the thread that asked the keyring for it.
        self.reads: list[tuple[str, int]] = []

    def get_password(self, service: str, username: str) -> str | None:
        self.reads.append((username, threading.get_ident()))
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.secrets.pop((service, username), None) is None:
            raise PasswordDeleteError("not found")

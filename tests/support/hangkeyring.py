"""A keyring backend that never answers, as a locked Secret Service waiting on an unlock
prompt nobody sees (issue 21 item 11). Select it in a child process with
``PYTHON_KEYRING_BACKEND=tests.support.hangkeyring.HangingKeyring``; each call first
creates the file named by ``IKGUI_TEST_KEYRING_ASKED`` (if set), so that a test knows
the process is now waiting for it. In a test's own process, :attr:`HangingKeyring.asked`
tells the same and ``release()`` lets the calls go on (answering nothing)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from keyring.backend import KeyringBackend


class HangingKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]
    #: Never found by keyring's discovery (a process's first ``get_keyring()`` would chain
    #: a copy of every viable backend): a test sets it, or a child process names it.
    viable = False  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        #: The threads that called it, one per call.
        self.asked: list[int] = []
        self._released = threading.Event()

    def release(self) -> None:
        self._released.set()

    def _hang(self) -> None:
        self.asked.append(threading.get_ident())
        marker = os.environ.get("IKGUI_TEST_KEYRING_ASKED")
        if marker:
            Path(marker).touch()
        self._released.wait()  # forever, unless released

    def get_password(self, service: str, username: str) -> str | None:
        self._hang()
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._hang()

    def delete_password(self, service: str, username: str) -> None:
        self._hang()

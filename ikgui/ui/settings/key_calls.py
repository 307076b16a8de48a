"""The Settings dialog's calls to the key store, each in a daemon thread of its own,
answered on the GUI thread: the keyring may take seconds (D-Bus, a prompt to unlock) or
never answer (the key store gives up after its limit), and the dialog must go on
painting and taking typing meanwhile."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class KeyCalls(QObject):
    """Runs ``work`` off the GUI thread and hands its result to ``then`` on it. A call
    answered after its owner is gone is dropped with the owner's connections."""

    _answered = Signal(object, object)  # then, result

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Emitted from the worker thread: Qt queues it to this object's (the GUI) thread.
        self._answered.connect(self._deliver)
        #: Calls started and not yet answered.
        self.pending = 0

    def run(self, work: Callable[[], Any], then: Callable[[Any], None]) -> None:
        self.pending += 1

        def target() -> None:
            try:
                result = work()
            except Exception:  # the key store answers None for a failure: this is a bug
                log.exception("a key store call failed")
                result = None
            with contextlib.suppress(RuntimeError):  # the dialog was deleted meanwhile
                self._answered.emit(then, result)

        threading.Thread(target=target, name="ikgui-settings-keys", daemon=True).start()

    def _deliver(self, then: Callable[[Any], None], result: Any) -> None:
        self.pending -= 1
        then(result)

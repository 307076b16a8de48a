"""One window per database: a second launch asks the running one to come to the front
instead of opening a second writer window (a local socket named after the database).

QtNetwork loads only when a window listens or may be listening: on Unix the socket is a
file in Qt's temporary folder, so a launch with no window running never needs it.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QDir, QObject

if TYPE_CHECKING:
    from PySide6.QtNetwork import QLocalSocket

ACTIVATE = b"activate\n"
DONE = b"done\n"


def server_name(database: Path) -> str:
    digest = hashlib.sha256(str(database.resolve()).encode()).hexdigest()[:16]
    return f"ikgui-{digest}"


def ask_running_instance(database: Path, timeout_ms: int = 500) -> bool:
    """True if a window on ``database`` is already running (and was asked to show).

    Waits up to ``timeout_ms`` for the window to say it came to the front (a window
    busy finishing its own start-up answers a little later)."""
    name = server_name(database)
    if sys.platform != "win32" and not Path(QDir.tempPath(), name).exists():
        return False  # where QLocalServer.listen(name) puts its socket: no window listens
    from PySide6.QtNetwork import QLocalSocket

    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(ACTIVATE)
    socket.flush()
    socket.waitForBytesWritten(timeout_ms)
    socket.waitForReadyRead(timeout_ms)
    socket.disconnectFromServer()
    return True


class InstanceServer(QObject):
    """Listens for later launches on the same database; calls ``on_activate``."""

    def __init__(
        self, database: Path, on_activate: Callable[[], None], parent: QObject | None = None
    ) -> None:
        from PySide6.QtNetwork import QLocalServer

        super().__init__(parent)
        self.on_activate = on_activate
        self.server = QLocalServer(self)
        name = server_name(database)
        QLocalServer.removeServer(name)  # a stale socket left by a crash
        self.listening = self.server.listen(name)
        self.server.newConnection.connect(self._accept)

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            if socket is None:
                continue
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)

    def _read(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll().data()).startswith(ACTIVATE.strip()):
            self.on_activate()
            socket.write(DONE)
            socket.flush()

    def close(self) -> None:
        self.server.close()

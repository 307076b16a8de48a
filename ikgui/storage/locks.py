"""Per-conversation send locks between processes: one small lock file each.

A lock is an OS file lock (``flock`` on POSIX, ``msvcrt.locking`` on Windows) on
``<folder>/<conversation id>.lock``; the OS drops it when its process dies, so a crash
never leaves a conversation locked. The standard library does this in a few lines, so
no dependency is added. On POSIX the holder deletes the file when it releases, and a
taker checks it still holds the file at that path (not one deleted under it), so the
folder does not fill up with one file per conversation ever sent.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import IO

from ikgui.domain.errors import StorageError
from ikgui.domain.text.safe import valid_id


def _file_name(conv_id: str) -> str:
    if valid_id(conv_id):
        return f"{conv_id}.lock"
    return hashlib.sha256(conv_id.encode()).hexdigest()[:32] + ".lock"


class FileSendLock:
    """The send lock of one conversation (see ``ikgui.domain.ports.SendLock``)."""

    def __init__(self, folder: Path, conv_id: str) -> None:
        self.path = folder / _file_name(conv_id)
        self._file: IO[bytes] | None = None

    @property
    def held(self) -> bool:
        return self._file is not None

    def acquire(self) -> bool:
        if self._file is not None:
            return True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(self.path, "a+b")  # noqa: SIM115 - held until release()
        except OSError as exc:
            raise StorageError(
                f"Could not create the lock file {self.path}: {exc.strerror or exc}."
            ) from exc
        if not _try_lock(handle) or not _still_there(handle, self.path):
            handle.close()
            return False
        self._file = handle
        return True

    def release(self) -> None:
        handle, self._file = self._file, None
        if handle is None:
            return
        try:
            if sys.platform != "win32":
                self.path.unlink(missing_ok=True)  # while still held: nobody holds a stale one
            _unlock(handle)
        except OSError:
            pass
        finally:
            handle.close()

    def __enter__(self) -> FileSendLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(handle: IO[bytes]) -> bool:
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[bytes]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

    def _still_there(handle: IO[bytes], path: Path) -> bool:
        return True  # an open file cannot be deleted on Windows

else:
    import fcntl

    def _try_lock(handle: IO[bytes]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[bytes]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _still_there(handle: IO[bytes], path: Path) -> bool:
        """The locked file is still the one at ``path`` (its holder may have deleted it
        between our open and our lock: then a newer file is the real lock)."""
        try:
            return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
        except OSError:
            return False
